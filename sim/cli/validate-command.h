// `hfsim validate [DIR]`: every scenario of DIR with a "validation" block, run on the analytical
// engine, its predictions next to what the real runs measured (docs/validation.md).
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace hfsim {

struct ValidateCommand {
  std::string directory = "configs/validation/";
  std::string out_dir;
  bool quiet = false;
  bool no_plot = false;

  void Register(CLI::App& app);
  /// Exit code: 0 every row predicted; 2 a scenario refused (bad input) or nothing to validate;
  /// 1 a run failed or the files could not be written.
  int Execute() const;
};

}  // namespace hfsim

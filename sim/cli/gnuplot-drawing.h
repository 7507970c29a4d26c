// Draws a picture by running one of hfsim's gnuplot scripts in a directory (so the script stays
// relocatable next to its picture). gnuplot exits 0 even when it could not write the whole
// picture (a full disk), so the PNG is checked too: its signature first and its IEND chunk last.
#pragma once

#include <optional>
#include <string>

#include "sim/cli/output-files.h"
#include "sim/report/gnuplot-script.h"

namespace hfsim {

/// Adds each script of `pictures` to `files` with the picture it draws, and prints each note
/// (why a picture is not drawn) on stderr as `hfsim: note: ...` unless `quiet`.
void AddPictures(OutputFiles& files, const PlotSet& pictures, bool quiet);

/// Runs `directory`/`script`, whose `set output` names `png` (a plain file name), and puts the
/// picture's bytes in `picture`; an error message naming the picture when gnuplot fails, is
/// missing or leaves an incomplete PNG.
std::optional<std::string> DrawWithGnuplot(const std::string& directory, const std::string& script,
                                           const std::string& png, std::string& picture);

/// True when `bytes` are a whole PNG file: the 8-byte signature and a final IEND chunk.
bool IsCompletePng(const std::string& bytes);

}  // namespace hfsim

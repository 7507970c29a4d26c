"""Progress of the table scripts (scripts/*-table) on a terminal, rows that survive Ctrl-C, and
the one way they run hfsim on a scenario.

Each script prints a Markdown table row by row, and a row can take minutes with the packet engine.
When stderr is a terminal, a line there says which row is being computed, what it is running and
for how long; rows are flushed as they finish, and Ctrl-C ends the script with the finished rows
printed and a note on stderr (exit 130). Nothing extra is written when stderr is not a terminal.
"""

import json
import os
import subprocess
import sys
import tempfile
import time

_TTY = sys.stderr.isatty()
_START = time.monotonic()
_rows = 0


def _clear():
    if _TTY:
        sys.stderr.write("\r\x1b[K")
        sys.stderr.flush()


def running(what):
    """Says on the terminal what the next row is waiting for."""
    if _TTY:
        s = int(time.monotonic() - _START)
        sys.stderr.write(f"\r\x1b[K[row {_rows + 1}] {what} ({s // 3600}:{s // 60 % 60:02}:{s % 60:02} "
                         "so far)")
        sys.stderr.flush()


def line(text=""):
    """A line of the output that is not a table row (a title, a header)."""
    _clear()
    print(text, flush=True)


def row(text):
    """A finished table row: printed at once, so an interrupted run keeps it."""
    global _rows
    line(text)
    _rows += 1


def main_keeping_rows(main):
    """Runs `main`; on Ctrl-C, says how many finished rows were printed and exits 130."""
    try:
        main()
    except KeyboardInterrupt:
        _clear()
        sys.stderr.write(f"interrupted: the {_rows} table rows above are complete\n")
        sys.exit(130)


def hfsim_report(hfsim, scenario, engine=None):
    """Runs `hfsim run` on `scenario` (a dict), saying so on the progress line; its report.json."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "scenario.json")
        with open(path, "w") as f:
            json.dump(scenario, f)
        command = [hfsim, "run", path, "-o", tmp, "-q", "--no-plot"]
        if engine:
            command += ["--engine", engine]
        running(f"{scenario.get('name', 'scenario')}, {engine or 'analytical'} engine")
        subprocess.run(command, check=True)
        with open(os.path.join(tmp, "report.json")) as f:
            return json.load(f)

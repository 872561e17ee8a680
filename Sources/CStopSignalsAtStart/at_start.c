// Catches SIGINT, SIGTERM and SIGHUP from a program's very start. An ELF .preinit_array function
// runs as soon as the dynamic loader has loaded and relocated the libraries, before any of their
// initialisers (the Swift runtime, Foundation, libpq's TLS stack) and long before main; only the
// loader's own work comes earlier. A signal arriving from here on is recorded
// (CStopSignals) and CommandRunner.main takes it over, so the program stops as documented
// instead of being killed the default way. Blocking the signals instead would not do: libdispatch
// parks the main thread in sigsuspend, every signal let through, before the async main runs.
//
// Only programs whose main is CommandRunner.main may link this: in any other the signals would be
// recorded and never acted on. A test bundle (*.xctest) links the programs' modules, and so this
// file, but never runs CommandRunner.main: there nothing is installed.
#include "CStopSignalsAtStart.h"

#include <CStopSignals.h>
#include <stddef.h>
#include <string.h>

static void taskbase_catch_stop_signals_at_start(int argc, char **argv, char **envp) {
    (void)envp;
    if (argc > 0 && argv != NULL && argv[0] != NULL) {
        const char *suffix = ".xctest";
        size_t length = strlen(argv[0]), suffixLength = strlen(suffix);
        if (length >= suffixLength && strcmp(argv[0] + length - suffixLength, suffix) == 0) return;
    }
    taskbase_catch_stop_signals_early();
}

__attribute__((used, section(".preinit_array"))) static void (*const taskbase_catch_stop_signals_entry)(int, char **, char **) =
    taskbase_catch_stop_signals_at_start;

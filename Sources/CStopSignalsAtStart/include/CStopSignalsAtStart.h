#ifndef C_STOP_SIGNALS_AT_START_H
#define C_STOP_SIGNALS_AT_START_H

// Nothing to call: linking this target into a program catches SIGINT, SIGTERM and SIGHUP from
// its start (see at_start.c). Only for programs whose main is CommandRunner.main.

#endif

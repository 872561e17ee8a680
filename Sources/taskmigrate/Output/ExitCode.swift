/// The exit codes of DESIGN.md §6, shared by all Taskbase programs.
enum ExitCode: Int32 {
    case ok = 0
    case failed = 1
    case usage = 2
    case cannotConnect = 3
    case permissionDenied = 4
    case conflict = 5
    case inputRejected = 6
}

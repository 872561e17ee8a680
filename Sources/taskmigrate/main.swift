import Foundation

exit(await TaskMigrate.run(Array(CommandLine.arguments.dropFirst())))

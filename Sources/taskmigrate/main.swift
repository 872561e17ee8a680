import CommandLineToolkit

await CommandRunner(root: TaskMigrateCommands.root).main()

print("taskmigrate")

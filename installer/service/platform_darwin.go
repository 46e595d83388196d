package service

func detect() string { return ManagerLaunchd }

package main

import "fmt"

// version is stamped at build time:
//
//	go build -ldflags "-X main.version=v1.2.3" ./cmd/fitbot
var version = "dev"

func (a *app) version(args []string) error {
	if len(args) > 0 {
		return usageError(fmt.Sprintf("version takes no arguments, got %q", args[0]), "fitbot version")
	}
	fmt.Fprintf(a.stdout, "fitbot %s\n", version)
	return nil
}

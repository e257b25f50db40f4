package main

import "context"

func (a *app) backup(ctx context.Context, args []string) int {
	return a.fail(exitFailure, "backup is not built yet", "")
}

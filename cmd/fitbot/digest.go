package main

import "context"

func (a *app) digest(ctx context.Context, args []string) int {
	return a.fail(exitFailure, "digest is not built yet", "")
}

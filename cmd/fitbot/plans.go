package main

import "context"

func (a *app) plans(ctx context.Context, args []string) int {
	return a.fail(exitFailure, "plans is not built yet", "")
}

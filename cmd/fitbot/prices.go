package main

import "context"

func (a *app) prices(ctx context.Context, args []string) int {
	return a.fail(exitFailure, "prices is not built yet", "")
}

package main

import "context"

func (a *app) fit(ctx context.Context, args []string) int {
	return a.fail(exitFailure, "fit is not built yet", "")
}

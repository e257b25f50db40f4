package main

import "context"

func (a *app) serve(ctx context.Context, args []string) int {
	return a.fail(exitFailure, "serve is not built yet", "")
}

package main

import "context"

func (a *app) parse(ctx context.Context, args []string) int {
	return a.fail(exitFailure, "parse is not built yet", "")
}

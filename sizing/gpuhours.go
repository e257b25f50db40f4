package sizing

// GPUHours is what an answer says of GPU-hours: the run's (its hours on
// its GPUs × those GPUs) and what a GPU-hours budget the question gave
// ("2000 a100 gpu-hours") buys of it. Package answer sets it on a fit
// answer whose question gave a budget or asked the run's GPU-hours.
type GPUHours struct {
	// Budget is the GPU-hours the question gave; 0 when it only asked
	// the run's.
	Budget float64 `json:"budget,omitempty"`
	// GPUs is how many GPUs the run is counted on: the answer's.
	GPUs int `json:"gpus"`
	// Run is the run's GPU-hours, RunHours × GPUs; nil without a token
	// count, a training speed or for serving.
	Run *float64 `json:"run"`
	// RunHours is the run's wall-clock hours on those GPUs (RunHours of
	// the token count at the answer's speed, goodput counted); nil when
	// Run is.
	RunHours *float64 `json:"run_hours"`
	// Covers is whether the budget covers the run; nil without a
	// budget or a run.
	Covers *bool `json:"covers,omitempty"`
	// BudgetHours is how long the budget keeps the GPUs running:
	// Budget / GPUs; nil without a budget.
	BudgetHours *float64 `json:"budget_hours,omitempty"`
	// Tokens is how many tokens the budget trains at the run's speed:
	// BudgetHours of training at that speed, goodput counted; nil
	// without a budget, a training speed or for serving.
	Tokens *float64 `json:"tokens,omitempty"`
	// Way is the change on the same cards the run is timed with when it
	// does not fit as asked ("gradient checkpointing"); "" when it is
	// timed as asked.
	Way string `json:"way,omitempty"`
}

// CountGPUHours counts the GPU-hours of r's run timed with t, the
// throughput its time is told with (the answer's, or its same-card
// way's when it does not fit as asked), and what the budget r gives buys
// there: the run's GPU-hours are its hours × its GPUs, and the budget
// trains budget/GPUs hours' worth of tokens at t's speed, so tokens
// scale with the budget and a budget of exactly the run's GPU-hours
// trains exactly its tokens. Serving counts the budget's hours only.
func CountGPUHours(r Request, t Throughput) GPUHours {
	g := GPUHours{Budget: r.GPUHours, GPUs: max(r.GPUs, 1)}
	gpus := float64(g.GPUs)
	if g.Budget > 0 {
		h := g.Budget / gpus
		g.BudgetHours = &h
	}
	if r.Method == MethodInference || t.TokensPerSecond == nil || *t.TokensPerSecond <= 0 {
		return g
	}
	tps := *t.TokensPerSecond
	if r.Tokens > 0 {
		h := runHoursFor(&r, float64(r.Tokens), tps)
		run := h * gpus
		g.RunHours, g.Run = &h, &run
		if g.Budget > 0 {
			covers := run <= g.Budget
			g.Covers = &covers
		}
	}
	if g.BudgetHours != nil {
		tokens := *g.BudgetHours / runHoursFor(&r, 1, tps)
		g.Tokens = &tokens
	}
	return g
}

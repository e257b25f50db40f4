package sizing

// InputError is input the estimator cannot use as given: a contradiction,
// an impossible number, or a word it does not understand. Problem says
// what was wrong in words a user understands; Hint shows a corrected
// example that would work. The CLI exits 2 on it and the bot replies with
// both.
type InputError struct {
	Problem string // e.g. `qlora trains adapters, it cannot be combined with inference`
	Hint    string // e.g. "fit llama-3.1-8b qlora rtx-4090"
}

func (e *InputError) Error() string { return e.Problem }

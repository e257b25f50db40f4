// Package llm is fitbot's language-model fallback for free-text sizing
// questions the deterministic parser cannot read. It sends one
// chat-completions request to any OpenAI-compatible server (OpenAI, Azure
// OpenAI, vLLM, Ollama, llama.cpp server) asking for exactly the request
// fields as a strict JSON-schema structured output, turns those fields into
// canonical command words and runs them through reading.Parse, so that what
// the model says is validated exactly like typed input.
//
// The model never supplies numbers for the answer, only request fields, and
// the user's text is data: it travels only in the user message, quoted, and
// nothing in the model's reply can do more than fill request fields.
//
// The request uses response_format json_schema (strict) rather than a
// forced tool call: it is one field every target server accepts (OpenAI,
// Azure OpenAI from API version 2024-08-01, vLLM, Ollama 0.5+, llama.cpp
// server), whereas tool calls need vLLM's --enable-auto-tool-choice and a
// parser flag and llama.cpp's --jinja. Servers that ignore the format
// (some Ollama models) are covered by the same re-validation: the reply
// must match the schema, a Markdown fence or <think> block aside.
//
// It imports sizing and the go-openai client, and must not depend on the
// bot, store or pricing packages.
package llm

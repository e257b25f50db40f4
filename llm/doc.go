// Package llm is fitbot's language model as a second reader of questions,
// beside the grammar, for both faces (Slack and the command line). It
// sends one chat-completions request to any OpenAI-compatible server
// (OpenAI, Azure OpenAI, vLLM, Ollama, llama.cpp server) and accepts the
// reply only as a strict JSON-schema structured output.
//
// Reader[R] reads a question into a typed request R: it is given the
// grammar's own reading, the schema is generated from R's JSON tags
// (every property required, enums from the catalogs, RequestSpec), and
// the model's R is accepted only when it is exactly the schema and passes
// the same check as the grammar's reading; it is never rendered to words
// and parsed again. ReadFollowUp reads a message in the thread of an
// answer the same way, as a change to the thread's request.
//
// The model never supplies numbers for the answer, only request fields,
// and the user's text is data: it travels only in the user message,
// quoted, and nothing in the model's reply can do more than fill request
// fields.
//
// The request uses response_format json_schema (strict) rather than a
// forced tool call: it is one field every target server accepts (OpenAI,
// Azure OpenAI from API version 2024-08-01, vLLM, Ollama 0.5+, llama.cpp
// server), whereas tool calls need vLLM's --enable-auto-tool-choice and a
// parser flag and llama.cpp's --jinja. Servers that ignore the format
// (some Ollama models) are covered by the same re-validation: the reply
// must match the schema, a Markdown fence or a reasoning model's thinking
// (up to its </think>) aside.
//
// It imports sizing (the catalogs and the settings' values) and the
// go-openai client, and must not depend on the bot, answer, store or
// pricing packages: the request type and its check are given to it.
package llm

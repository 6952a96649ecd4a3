"""The twin's content floor: what a response is made of, with no notion of time or hardware: token counting and
output text (`tokens`, `text`), traffic domains (`domain`), answer lengths (`lengths`), scripted output
(`scripted`, `outputs`: reasoning, tool calls in Kimi-K2's format, constrained text, `constrained`,
`toolcalls`), `return_hidden_states` (`hidden`) and /generate's prompt fields (`prompt_fields`). Imports nothing
else of the twin."""

"""The twin's HTTP surface, as SGLang 0.5.23's entrypoints: the app and its routes (`app`, `server`), refusals
(`errors`), the request schema (`schema`) and its validation layers (`validate`), reading a body into engine
requests (`requests`), response shaping (`shaping`, `completions`, `responses`, exact wire shapes in `wire`),
logprobs, /v1/score, the introspection routes, timing keys and /metrics. The top floor: imports every floor below."""

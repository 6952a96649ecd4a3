"""Layer 2 of validate.py, the schema: SGLang 0.5.23's request models (`entrypoints/openai/protocol.py`,
pydantic) restated field for field: names, types, union members and validator names, which pydantic prints in an
error's `loc`, so the twin's schema errors are pydantic's own."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, field_validator, model_validator

_GENERIC_ROLES = ("system", "assistant", "tool", "function", "developer", "latest_reminder", "root")
#: (List first: SGLang's module builds this Union after others with that order, and typing's cache keeps the first
#: order, which pydantic's union errors follow)
_StrList = list[str] | str | None


def _thinking_parts(content: Any) -> bool:
    return isinstance(content, list) and any(isinstance(p, dict) and p.get("type") in ("thinking", "reasoning")
                                             for p in content)


class FunctionResponse(BaseModel):
    name: str | None = None
    arguments: str | dict[str, Any] | None = None


class ToolCall(BaseModel):
    id: str | None = None
    index: int | None = None
    type: Literal["function"] = "function"
    function: FunctionResponse


class Function(BaseModel):
    description: str | None = None
    name: str
    parameters: object | None = None
    strict: bool | None = None
    defer_loading: bool | None = None
    key_order: list[str] = Field(default_factory=list, exclude=True)

    @model_validator(mode="before")
    @classmethod
    def _capture_key_order(cls, data: Any) -> Any:  # SGLang records the client's key order (and echoes it)
        if isinstance(data, dict):
            data = dict(data)
            data["key_order"] = list(data.keys())
        return data


class Tool(BaseModel):
    type: str = "function"
    function: Function
    defer_loading: bool | None = None


class ChatCompletionMessageGenericParam(BaseModel):
    role: Literal["system", "assistant", "tool", "function", "developer", "latest_reminder", "root"]
    content: str | list[dict[str, Any]] | None = None
    tool_call_id: str | None = None
    name: str | None = None
    phase: Literal["commentary", "final_answer"] | None = None
    reasoning_content: str | None = None
    tool_calls: list[ToolCall] | None = None
    tools: list[Tool] | None = None
    prefix: bool | None = None

    @field_validator("role", mode="before")
    @classmethod
    def _normalize_role(cls, v: Any) -> Any:
        if isinstance(v, str):
            if v.lower() not in _GENERIC_ROLES:
                allowed = ", ".join(repr(r) for r in _GENERIC_ROLES)
                raise ValueError(f"'role' must be one of {allowed} (case-insensitive).")
            return v.lower()
        raise ValueError("'role' must be a string")

    @model_validator(mode="after")
    def validate_thinking_parts_role(self) -> ChatCompletionMessageGenericParam:
        if self.role != "assistant" and _thinking_parts(self.content):
            raise ValueError("thinking content parts are only valid in assistant messages")
        return self


class ChatCompletionMessageUserParam(BaseModel):
    role: Literal["user"]
    content: str | list[dict[str, Any]]

    @model_validator(mode="after")
    def validate_thinking_parts_role(self) -> ChatCompletionMessageUserParam:
        if _thinking_parts(self.content):
            raise ValueError("thinking content parts are only valid in assistant messages")
        return self


class ToolChoiceFuncName(BaseModel):
    name: str | None = None


class ToolChoice(BaseModel):
    function: ToolChoiceFuncName
    type: Literal["function"] = "function"


class StreamOptions(BaseModel):
    include_usage: bool | None = False
    continuous_usage_stats: bool | None = False


_Effort = (Literal["none", "minimal", "low", "medium", "high", "xhigh", "ultra", "max"]
           | Annotated[float, Field(ge=0.0, le=0.99, allow_inf_nan=False)] | None)


def _message_level_tools(messages: Any) -> bool:
    return isinstance(messages, list) and any(
        isinstance(m, dict) and isinstance(m.get("role"), str) and m["role"].lower() in ("root", "system", "developer")
        and bool(m.get("tools")) for m in messages)


class _Routing(BaseModel):
    bootstrap_host: list[str] | str | None = None
    bootstrap_port: list[int | None] | int | None = None
    bootstrap_room: list[int] | int | None = None
    routed_dp_rank: int | None = None
    disagg_prefill_dp_rank: int | None = None


def _migrate_dp_rank(values: Any) -> Any:
    if isinstance(values, dict) and values.get("data_parallel_rank") is not None \
            and values.get("routed_dp_rank") is None:
        values["routed_dp_rank"] = values["data_parallel_rank"]
    return values


class ChatCompletionRequest(_Routing):
    """SGLang's chat request schema: the fields a client can get wrong, in SGLang's order and types."""

    messages: list[ChatCompletionMessageGenericParam | ChatCompletionMessageUserParam]
    model: str = "default"
    frequency_penalty: float = 0.0
    logit_bias: dict[str, float] | None = None
    logprobs: bool = False
    top_logprobs: int | None = None
    max_tokens: int | None = None
    max_completion_tokens: int | None = None
    n: int = 1
    presence_penalty: float = 0.0
    response_format: dict[str, Any] | None = None
    seed: int | None = None
    stop: _StrList = None
    stream: bool = False
    stream_options: StreamOptions | None = None
    temperature: float | None = None
    top_p: float | None = None
    user: str | None = None
    tools: list[Tool] | None = None
    tool_choice: ToolChoice | Literal["auto", "required", "none"] = "auto"
    parallel_tool_calls: bool = True
    return_hidden_states: bool | Literal["last"] = False
    return_meta_info: bool = False
    reasoning_effort: _Effort = None
    top_k: int | None = None
    min_p: float | None = None
    min_tokens: int = 0
    regex: str | None = None
    ebnf: str | None = None
    repetition_penalty: float | None = None
    stop_token_ids: list[int] | None = None
    stop_regex: _StrList = None
    no_stop_trim: bool = False
    ignore_eos: bool = False
    continue_final_message: bool = False
    skip_special_tokens: bool = True
    lora_path: list[str | None] | str | None = None
    separate_reasoning: bool = True
    stream_reasoning: bool = True
    chat_template_kwargs: dict | None = None
    input_ids: list[int] | None = None
    rid: list[str] | str | None = None
    priority: int | None = None

    @model_validator(mode="before")
    @classmethod
    def _handle_deprecated_dp_rank(cls, values: Any) -> Any:
        return _migrate_dp_rank(values)

    @model_validator(mode="before")
    @classmethod
    def set_tool_choice_default(cls, values: Any) -> Any:  # (a non-object body fails here in SGLang: a 500)
        if values.get("tool_choice") is None:
            no_tools = values.get("tools") is None and not _message_level_tools(values.get("messages"))
            values["tool_choice"] = "none" if no_tools else "auto"
        return values

    @field_validator("reasoning_effort", mode="before")
    @classmethod
    def validate_reasoning_effort_type(cls, value: Any) -> Any:
        if isinstance(value, bool):
            raise ValueError("reasoning_effort must not be a boolean")
        return value


class CompletionRequest(_Routing):
    """SGLang's /v1/completions request schema (the fields a client can get wrong)."""

    model: str = "default"
    prompt: list[int] | list[list[int]] | str | list[str]
    best_of: int | None = None
    echo: bool = False
    frequency_penalty: float = 0.0
    logit_bias: dict[str, float] | None = None
    logprobs: int | None = None
    max_tokens: int = 16
    n: int = 1
    presence_penalty: float = 0.0
    seed: int | None = None
    stop: _StrList = None
    stream: bool = False
    stream_options: StreamOptions | None = None
    suffix: str | None = None
    temperature: float = 1.0
    top_p: float = 1.0
    user: str | None = None
    return_hidden_states: bool | Literal["last"] = False
    top_k: int = -1
    min_p: float = 0.0
    min_tokens: int = 0
    json_schema: str | None = None
    regex: str | None = None
    ebnf: str | None = None
    repetition_penalty: float = 1.0
    stop_token_ids: list[int] | None = None
    stop_regex: _StrList = None
    no_stop_trim: bool = False
    ignore_eos: bool = False
    skip_special_tokens: bool = True
    lora_path: list[str | None] | str | None = None
    rid: list[str] | str | None = None
    priority: int | None = None

    @model_validator(mode="before")
    @classmethod
    def _handle_deprecated_dp_rank(cls, values: Any) -> Any:
        return _migrate_dp_rank(values)

    @field_validator("max_tokens")
    @classmethod
    def validate_max_tokens_positive(cls, v: Any) -> Any:
        if v is not None and v <= 0:
            raise ValueError("max_tokens must be positive")
        return v



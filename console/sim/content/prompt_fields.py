"""GenerateReqInput's rid and prompt fields as its pydantic dataclass types them (SGLang 0.5.23 io_struct.py, with
sglang.srt.utils.field_validators for input_ids): a batch's every text and rid a string, its token-id rows lists
of int64. validate.check_generate_body reports these errors first, in SGLang's ErrorResponse."""

from __future__ import annotations

from array import array
from typing import Annotated, Any

from pydantic import BaseModel, PlainValidator


def _i64_row(v: Any) -> list[int]:
    """validate_list_i64_1d."""
    if v is None:
        raise ValueError("must not be None")
    if not isinstance(v, list):
        raise ValueError(f"must be list; got {type(v).__name__}")
    if not v:
        return v
    if not isinstance(v[0], int):
        raise ValueError(f"elements must be int; got {type(v[0]).__name__}")
    try:
        array("q", v)
    except (TypeError, OverflowError) as e:
        raise ValueError(f"contains non-int64 element: {e}") from None
    return v


def i64_rows(v: Any) -> Any:
    """validate_optional_list_i64_1d_2d: token ids, or rows of them (a batch)."""
    if v is None:
        return v
    if not isinstance(v, list):
        raise ValueError(f"must be list or null; got {type(v).__name__}")
    if not v:
        return v
    if isinstance(v[0], int):
        return _i64_row(v)
    if isinstance(v[0], list):
        for i, row in enumerate(v):
            try:
                _i64_row(row)
            except ValueError as e:
                raise ValueError(f"row {i}: {e}") from None
        return v
    raise ValueError(f"elements must be int or list; got {type(v[0]).__name__}")


class PromptFields(BaseModel):
    """The fields in GenerateReqInput's order. Both unions are written list first: typing caches a Union by its
    members, so the first spelling imported is the one every model gets (the chat models' stop lists list[str]
    first, as SGLang); validate._field_errors puts these fields' `str` errors first, as the real server does."""

    rid: list[str] | str | None = None
    text: list[str] | str | None = None
    input_ids: Annotated[Any, PlainValidator(i64_rows)] = None

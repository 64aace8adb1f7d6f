"""For server authors: a model as an elicitation, checked at the desk, and a one-line confirmation.

On the SDK's own mechanism (`Resolve` / `Elicit`, both protocol generations). This room imports no widget,
kernel or IPython module: `mw.preview(Model)` and `mw.playground(Model)` (the widget side) call it.

    check_model(Model)      the requestedSchema the SDK sends for Model, or ModelError naming rule and field
    as_model(Dataclass)     the pydantic model `Elicit` takes for a dataclass
    confirm("Delete {path}?")  a resolver: `ok: Annotated[bool, Resolve(confirm(...))]`, True only on accept
"""

from __future__ import annotations

from .confirm import Confirmation, confirm
from .models import ModelError, as_model, check_model, model_problems, sendable_schema
from .received import received, validated

__all__ = [
    "Confirmation",
    "ModelError",
    "as_model",
    "check_model",
    "confirm",
    "model_problems",
    "received",
    "sendable_schema",
    "validated",
]

import mcp_widgets


def test_all_is_sorted_and_complete() -> None:
    exported = mcp_widgets.__all__
    assert exported == sorted(exported)
    for name in exported:
        assert getattr(mcp_widgets, name) is not None, name


def test_public_names_are_exported() -> None:
    public = {name for name in dir(mcp_widgets) if not name.startswith("_")}
    assert public == {n for n in mcp_widgets.__all__ if not n.startswith("_")}


def test_unknown_name_raises_attribute_error() -> None:
    try:
        mcp_widgets.no_such_thing  # noqa: B018
    except AttributeError as exc:
        assert "no_such_thing" in str(exc)
    else:
        raise AssertionError("expected AttributeError")

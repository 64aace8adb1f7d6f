"""core.apps: which tool has an app, who may call a tool, the policy an app runs under, and the bridge's
message checks."""

from __future__ import annotations

import base64
import json

import pytest

from mcp_widgets.core import app_policy as apps


def test_the_resource_uri_comes_from_ui_or_the_deprecated_flat_key() -> None:
    assert apps.app_resource_uri({"ui": {"resourceUri": "ui://a/b.html"}}) == "ui://a/b.html"
    assert apps.app_resource_uri({"ui/resourceUri": "ui://flat"}) == "ui://flat"
    assert apps.app_resource_uri({"ui": {"resourceUri": "https://x.test/app"}}) is None
    assert apps.app_resource_uri({"ui": "nope"}) is None
    assert apps.app_resource_uri(None) is None
    assert apps.app_resource_uri({"ui": {"resourceUri": "ui://" + "x" * 3000}}) is None


def test_visibility_defaults_to_both_and_a_malformed_one_shuts_apps_out() -> None:
    assert apps.visibility(None) == ("model", "app")
    assert apps.visibility({"ui": {"visibility": ["app"]}}) == ("app",)
    assert apps.visibility({"ui": {"visibility": ["model"]}}) == ("model",)
    assert apps.visibility({"ui": {"visibility": "app"}}) == ("model",)
    assert apps.visibility({"ui": {"visibility": ["app", "admin"]}}) == ("model",)
    assert apps.callable_by_app({}) and not apps.callable_by_app({"ui": {"visibility": ["model"]}})


def directives(policy: str) -> dict[str, list[str]]:
    out = {}
    for part in policy.split("; "):
        name, *values = part.split(" ")
        out[name] = values
    return out


def test_the_default_policy_is_the_spec_s_without_self() -> None:
    policy, approved, dropped = apps.content_security_policy({})
    d = directives(policy)
    assert d["default-src"] == ["'none'"]
    assert d["connect-src"] == ["'none'"]
    assert d["script-src"] == ["'unsafe-inline'"]
    assert d["frame-src"] == ["'none'"] and d["object-src"] == ["'none'"]
    assert d["base-uri"] == ["'none'"] and d["form-action"] == ["'none'"]
    assert "'self'" not in policy  # in a srcdoc frame it would name the notebook server
    assert approved == {} and dropped == ()


def test_the_frame_around_the_app_s_allows_only_what_the_app_may_frame() -> None:
    """The sandbox proxy's policy: only frame-src (the app's frame inherits it: anything more would tighten
    the app's declared policy), nothing unless frameDomains are declared, and never an undeclared origin."""
    html = "<!DOCTYPE html><p>app</p>"
    plain = apps.read_document("ui://a", [{"uri": "ui://a", "mimeType": apps.APP_MIME_TYPE, "text": html}])
    assert plain.frame_policy == "frame-src 'none'"
    meta = {"ui": {"csp": {"frameDomains": ["https://player.example.org", "https://x.test; script-src *"]}}}
    framed = apps.read_document(
        "ui://a", [{"uri": "ui://a", "mimeType": apps.APP_MIME_TYPE, "text": html, "_meta": meta}]
    )
    assert framed.frame_policy == "frame-src https://player.example.org"


def test_declared_domains_widen_only_their_directives_and_injections_are_dropped() -> None:
    meta = {
        "csp": {
            "connectDomains": ["https://api.example.com", "wss://live.example.com:8443"],
            "resourceDomains": ["https://*.cdn.example.net"],
            "frameDomains": ["https://player.example.org"],
            "baseUriDomains": ["https://base.example.com"],
        }
    }
    policy, approved, dropped = apps.content_security_policy(meta)
    d = directives(policy)
    assert d["connect-src"] == ["https://api.example.com", "wss://live.example.com:8443"]
    assert "https://*.cdn.example.net" in d["script-src"] and "https://*.cdn.example.net" in d["img-src"]
    assert d["frame-src"] == ["https://player.example.org"]
    assert d["base-uri"] == ["https://base.example.com"]
    assert approved["connectDomains"] == ("https://api.example.com", "wss://live.example.com:8443")
    assert dropped == ()

    hostile = {
        "csp": {
            "connectDomains": [
                "https://ok.example.com; script-src *",
                "*",
                "'unsafe-eval'",
                "https://a.example.com/path",
                "javascript:alert(1)",
                "https://ok.example.com",
                7,
            ],
            "resourceDomains": "https://not-a-list.example.com",
        }
    }
    policy, approved, dropped = apps.content_security_policy(hostile)
    assert directives(policy)["connect-src"] == ["https://ok.example.com"]
    assert directives(policy)["script-src"] == ["'unsafe-inline'"]
    assert len(dropped) == 7  # six bad entries and the list that is not one
    assert ";" not in "".join(directives(policy)["connect-src"])


def test_permissions_are_the_spec_s_four_only() -> None:
    allow, names = apps.permission_policy(
        {"permissions": {"camera": {}, "clipboardWrite": {}, "usb": {}, "microphone": True}}
    )
    assert names == ("camera", "clipboard-write")
    assert allow == "camera; clipboard-write"
    assert apps.permission_policy({}) == ("", ())
    # The host context names them back by the spec's keys (what ui/initialize tells the app it was granted).
    assert apps.permission_keys(names) == ["camera", "clipboardWrite"]
    assert apps.permission_keys(("usb", "geolocation")) == ["geolocation"]


@pytest.mark.parametrize(
    ("html", "head"),
    [
        ("<!DOCTYPE html><html><body>x</body></html>", "<!DOCTYPE html><meta "),
        ("\ufeff  <!-- hi --> <!doctype HTML><p>", "\ufeff  <!-- hi --> <!doctype HTML><meta "),
        ("<script>steal()</script>", "<meta "),
    ],
)
def test_the_policy_is_the_document_s_first_element(html: str, head: str) -> None:
    shown = apps.with_policy(html, "default-src 'none'")
    assert shown.startswith(head)
    policy_at = shown.index('http-equiv="Content-Security-Policy"')
    assert "<script" not in html or policy_at < shown.find("<script")


def test_reading_a_document_checks_type_size_and_encoding() -> None:
    uri = "ui://x/app.html"
    html = "<!DOCTYPE html><p>hi</p>"
    doc = apps.read_document(uri, [{"uri": uri, "mimeType": apps.APP_MIME_TYPE, "text": html}])
    assert doc.html.endswith("<p>hi</p>") and "Content-Security-Policy" in doc.html
    assert "html" not in repr(doc) or "<p>" not in repr(doc)
    blob = base64.b64encode(html.encode()).decode()
    from_blob = apps.read_document(uri, [{"uri": uri, "mimeType": apps.APP_MIME_TYPE, "blob": blob}])
    assert from_blob.html == doc.html
    with pytest.raises(apps.AppError, match="not 'text/html;profile=mcp-app'"):
        apps.read_document(uri, [{"uri": uri, "mimeType": "text/html", "text": html}])
    with pytest.raises(apps.AppError, match="not base64"):
        apps.read_document(uri, [{"uri": uri, "mimeType": apps.APP_MIME_TYPE, "blob": "%%%"}])
    with pytest.raises(apps.AppError, match="larger than"):
        big = "x" * (apps.MAX_DOCUMENT + 1)
        apps.read_document(uri, [{"uri": uri, "mimeType": apps.APP_MIME_TYPE, "text": big}])
    with pytest.raises(apps.AppError, match="no content"):
        apps.read_document(uri, [])


def test_messages_are_checked_and_malformed_ones_get_json_rpc_errors() -> None:
    request = apps.parse_message(json.dumps({"jsonrpc": "2.0", "id": 3, "method": "ping"}))
    assert isinstance(request, apps.BridgeMessage) and request.kind == "request" and request.params == {}
    note = apps.parse_message(json.dumps({"jsonrpc": "2.0", "method": "x/y", "params": {"a": 1}}))
    assert isinstance(note, apps.BridgeMessage) and note.kind == "notification"
    reply = apps.parse_message(json.dumps({"jsonrpc": "2.0", "id": "h-1", "result": {}}))
    assert isinstance(reply, apps.BridgeMessage) and reply.kind == "response"

    def code(text: str) -> tuple[int, object]:
        error = apps.parse_message(text)
        assert isinstance(error, dict)
        return error["error"]["code"], error["id"]

    assert code("{nope") == (-32700, None)
    assert code("[1, 2]") == (-32600, None)
    assert code(json.dumps({"jsonrpc": "1.0", "id": 4, "method": "ping"})) == (-32600, 4)
    assert code(json.dumps({"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"})) == (-32600, None)
    assert code(json.dumps({"jsonrpc": "2.0", "id": True, "method": "ping"})) == (-32600, None)
    assert code(json.dumps({"jsonrpc": "2.0", "id": 5, "method": "x", "params": [1]})) == (-32602, 5)
    assert code(json.dumps({"jsonrpc": "2.0", "id": 6, "method": "m" * 101})) == (-32600, 6)
    assert code(json.dumps({"jsonrpc": "2.0", "id": 7})) == (-32600, 7)
    assert code("[" * 100_000) == (-32700, None)
    assert code(json.dumps({"pad": "x" * apps.MAX_MESSAGE})) == (-32600, None)


def test_style_variables_keep_only_well_formed_ones() -> None:
    kept = apps.style_variables(
        {
            "--font-sans": "Inter, sans-serif",
            "--color-text-primary": "#111",
            "--x": "red; } body { display: none",
            "color": "red",
            "--y": "<script>",
            "--z": 5,
        }
    )
    assert kept == {"--font-sans": "Inter, sans-serif", "--color-text-primary": "#111"}
    assert apps.style_variables("nope") == {}


def test_offered_files_get_safe_names_and_bounded_sizes() -> None:
    assert apps.file_name("ui://demo/rolls.csv") == "rolls.csv"
    assert apps.file_name("file:///etc/passwd") == "passwd"
    assert "/" not in apps.file_name("https://x.test/a/..%2F..%2Fevil.sh?x=1")
    assert apps.file_name("x://a/.bashrc") == "bashrc"
    assert apps.file_name("demo://") == "download"
    text = apps.file_from({"uri": "ui://a/b.txt", "mimeType": "text/plain", "text": "hé"})
    assert (text.name, text.mime, text.data) == ("b.txt", "text/plain", "hé".encode())
    assert "hé" not in repr(text)
    blob = apps.file_from({"uri": "ui://a/b.bin", "blob": base64.b64encode(b"\x00\x01").decode()})
    assert (blob.mime, blob.data) == ("application/octet-stream", b"\x00\x01")
    for bad in ({"uri": "ui://a"}, {"text": "x"}, {"uri": "ui://a", "blob": "%%"}, "nope"):
        with pytest.raises(apps.AppError):
            apps.file_from(bad)
    with pytest.raises(apps.AppError, match="larger than"):
        apps.file_from({"uri": "ui://a", "text": "x" * (apps.MAX_DOWNLOAD + 1)})

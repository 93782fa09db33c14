//! The Tools panel: the MCP servers the hub hosts (state, tool count, last error), their tools with
//! description and input schema, and a form generated from a tool's JSON Schema to call it.

use std::collections::HashMap;

use leptos::prelude::*;
use nexus_shared::{Frame, Outcome};
use serde_json::{Map, Value};

use crate::link::Link;

/// The field name that stands for the whole arguments object when the schema lists no properties.
const WHOLE: &str = "";

/// What the page knows of the hub's hosted tools: the registry as last sent, and the call shown.
#[derive(Clone, Copy)]
pub struct Hosted {
    registry: RwSignal<Option<Value>>,
    /// The id of the call awaiting its result, if any.
    pending: RwSignal<Option<String>>,
    result: RwSignal<Option<Shown>>,
    next_id: StoredValue<u64>,
}

impl Hosted {
    pub fn new() -> Hosted {
        Hosted {
            registry: RwSignal::new(None),
            pending: RwSignal::new(None),
            result: RwSignal::new(None),
            next_id: StoredValue::new(0),
        }
    }

    /// Applies a `Hosted` or `HostedResult` frame from the hub.
    pub fn receive(&self, frame: &Frame) {
        match frame {
            Frame::Hosted { registry } => self.registry.set(Some(registry.clone())),
            Frame::HostedResult { id, outcome, ms }
                if self.pending.get_untracked().as_deref() == Some(id.as_str()) =>
            {
                self.pending.set(None);
                self.result.set(Some(shown(outcome, *ms)));
            }
            _ => {}
        }
    }

    /// A call in flight fails when the link drops: the hub that ran it cannot answer any more.
    pub fn link_lost(&self) {
        if self.pending.get_untracked().is_some() {
            self.pending.set(None);
            self.result.set(Some(Shown::failed(
                "the link to the bridge dropped before the answer; call again",
            )));
        }
    }

    /// Another tool was picked: the shown result and any call awaited belong to the previous one.
    fn forget(&self) {
        self.pending.set(None);
        self.result.set(None);
    }

    fn call(&self, link: &Link, tool: String, args: Map<String, Value>) {
        let id = format!("ui-{}", self.next_id.get_value());
        self.next_id.update_value(|n| *n += 1);
        let frame = Frame::HostedCall {
            id: id.clone(),
            tool,
            args,
            timeout_ms: None,
        };
        match link.request(&frame) {
            Ok(()) => {
                self.result.set(None);
                self.pending.set(Some(id));
            }
            Err(message) => self.result.set(Some(Shown::failed(&message))),
        }
    }
}

/// A call's result as shown: its text contents, and whether it is an error.
#[derive(Debug, Clone, PartialEq)]
pub struct Shown {
    pub error: bool,
    pub texts: Vec<String>,
    pub ms: Option<u64>,
}

impl Shown {
    fn failed(message: &str) -> Shown {
        Shown {
            error: true,
            texts: vec![message.to_owned()],
            ms: None,
        }
    }
}

/// An MCP `CallToolResult` (as the hub's JSON text) or the hub's error, as shown.
pub fn shown(outcome: &Outcome, ms: u64) -> Shown {
    let (error, texts) = match outcome {
        Outcome::Err(err) => {
            let mut text = err.message.clone();
            if let Some(hint) = &err.hint {
                text.push_str(&format!(" ({hint})"));
            }
            (true, vec![text])
        }
        Outcome::Ok(output) => match serde_json::from_str::<Value>(&output.text) {
            Ok(result) => {
                let error = result["isError"].as_bool().unwrap_or(false);
                let texts = match result["content"].as_array() {
                    Some(items) if !items.is_empty() => items.iter().map(content_text).collect(),
                    _ => vec![output.text.clone()],
                };
                (error, texts)
            }
            Err(_) => (false, vec![output.text.clone()]),
        },
    };
    Shown {
        error,
        texts,
        ms: Some(ms),
    }
}

/// One content item: its text, or a line naming what it is (image, audio, resource).
fn content_text(item: &Value) -> String {
    match item["type"].as_str() {
        Some("text") => item["text"].as_str().unwrap_or_default().to_owned(),
        Some("resource") => match item["resource"]["text"].as_str() {
            Some(text) => text.to_owned(),
            None => format!(
                "[resource {}]",
                item["resource"]["uri"].as_str().unwrap_or("?")
            ),
        },
        Some(kind) => format!(
            "[{kind} {}, {} characters]",
            item["mimeType"].as_str().unwrap_or("?"),
            item["data"].as_str().map_or(0, str::len)
        ),
        None => item.to_string(),
    }
}

/// How a schema property is entered.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    Text,
    Number,
    Integer,
    Boolean,
    Choice(Vec<String>),
    /// Raw JSON: objects, arrays, and anything the form does not know.
    Json,
}

/// One form field generated from a schema property.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub name: String,
    pub kind: Kind,
    pub required: bool,
    pub description: String,
    /// What the input starts with: the schema's default, as typed.
    pub initial: String,
}

/// The form for a tool's input schema. Without `properties`, one raw JSON field takes the whole
/// arguments object.
pub fn fields(schema: &Value) -> Vec<Field> {
    let Some(properties) = schema["properties"].as_object() else {
        return vec![Field {
            name: WHOLE.into(),
            kind: Kind::Json,
            required: false,
            description: "The arguments as a JSON object".into(),
            initial: "{}".into(),
        }];
    };
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    properties
        .iter()
        .map(|(name, property)| {
            let kind = kind(property);
            let initial = match &property["default"] {
                Value::Null => String::new(),
                Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            Field {
                name: name.clone(),
                required: required.contains(&name.as_str()),
                description: property["description"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                kind,
                initial,
            }
        })
        .collect()
}

fn kind(property: &Value) -> Kind {
    if let Some(options) = property["enum"].as_array() {
        let names: Vec<String> = options
            .iter()
            .filter_map(|o| o.as_str().map(str::to_owned))
            .collect();
        return if names.len() == options.len() && !names.is_empty() {
            Kind::Choice(names)
        } else {
            Kind::Json
        };
    }
    // `["string", "null"]` is a string that may be left out.
    let types: Vec<&str> = match &property["type"] {
        Value::String(one) => vec![one.as_str()],
        Value::Array(many) => many
            .iter()
            .filter_map(Value::as_str)
            .filter(|t| *t != "null")
            .collect(),
        _ => Vec::new(),
    };
    match types.as_slice() {
        ["string"] => Kind::Text,
        ["number"] => Kind::Number,
        ["integer"] => Kind::Integer,
        ["boolean"] => Kind::Boolean,
        _ => Kind::Json,
    }
}

/// One field's typed text as a JSON value; `None` when left empty.
pub fn parse(field: &Field, text: &str) -> Result<Option<Value>, String> {
    let trimmed = text.trim();
    if trimmed.is_empty() && field.kind != Kind::Text {
        return Ok(None);
    }
    if text.is_empty() {
        return Ok(None);
    }
    match &field.kind {
        Kind::Text => Ok(Some(Value::String(text.to_owned()))),
        Kind::Number => trimmed
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map(|n| Some(Value::Number(n)))
            .ok_or_else(|| format!("`{trimmed}` is not a number")),
        Kind::Integer => trimmed
            .parse::<i64>()
            .map(|n| Some(Value::from(n)))
            .map_err(|_| format!("`{trimmed}` is not a whole number")),
        Kind::Boolean => match trimmed {
            "true" => Ok(Some(Value::Bool(true))),
            "false" => Ok(Some(Value::Bool(false))),
            other => Err(format!("`{other}` is not true or false")),
        },
        Kind::Choice(options) => {
            if options.iter().any(|o| o == trimmed) {
                Ok(Some(Value::String(trimmed.to_owned())))
            } else {
                Err(format!("`{trimmed}` is not one of {}", options.join(", ")))
            }
        }
        Kind::Json => serde_json::from_str(trimmed)
            .map(Some)
            .map_err(|err| format!("invalid JSON: {err}")),
    }
}

/// The arguments object from the typed values, or each failing field with its message.
pub fn arguments(
    fields: &[Field],
    values: &HashMap<String, String>,
) -> Result<Map<String, Value>, HashMap<String, String>> {
    let mut args = Map::new();
    let mut errors = HashMap::new();
    for field in fields {
        let text = values.get(&field.name).map_or("", String::as_str);
        match parse(field, text) {
            Ok(None) if field.required => {
                errors.insert(field.name.clone(), "required".into());
            }
            Ok(None) => {}
            Ok(Some(value)) if field.name == WHOLE => match value {
                Value::Object(map) => args.extend(map),
                _ => {
                    errors.insert(
                        field.name.clone(),
                        "the arguments must be a JSON object".into(),
                    );
                }
            },
            Ok(Some(value)) => {
                args.insert(field.name.clone(), value);
            }
            Err(message) => {
                errors.insert(field.name.clone(), message);
            }
        }
    }
    if errors.is_empty() {
        Ok(args)
    } else {
        Err(errors)
    }
}

/// The selected tool's description and input schema in the registry.
fn find_tool(registry: &Option<Value>, name: &str) -> Option<(String, Value)> {
    registry.as_ref()?["servers"]
        .as_array()?
        .iter()
        .filter_map(|server| server["tools"].as_array())
        .flatten()
        .find(|tool| tool["name"].as_str() == Some(name))
        .map(|tool| {
            (
                tool["description"].as_str().unwrap_or_default().to_owned(),
                tool["input_schema"].clone(),
            )
        })
}

#[component]
pub fn ToolsPanel(hosted: Hosted, link: StoredValue<Link, LocalStorage>) -> impl IntoView {
    let selected = RwSignal::new(None::<String>);
    let registry = hosted.registry;
    Effect::new(move |_| {
        selected.track();
        hosted.forget();
    });
    let chosen = Memo::new(move |_| {
        let name = selected.get()?;
        registry.with(|r| find_tool(r, &name)).map(|t| (name, t))
    });
    view! {
        <div class="tools" data-testid="tools">
            <ServerList registry=registry selected=selected />
            {move || chosen.get().map(|(name, (description, schema))| view! {
                <ToolForm hosted=hosted link=link name=name description=description schema=schema />
            })}
        </div>
    }
}

#[component]
fn ServerList(
    registry: RwSignal<Option<Value>>,
    selected: RwSignal<Option<String>>,
) -> impl IntoView {
    let servers = move || {
        registry.with(|r| {
            r.as_ref()
                .and_then(|r| r["servers"].as_array().cloned())
                .unwrap_or_default()
        })
    };
    view! {
        <div data-testid="tools-servers">
            {move || {
                let config_error = registry.with(|r| r.as_ref().and_then(|r| r["config_error"].as_str().map(str::to_owned)));
                config_error.map(|e| view! { <p class="error" data-testid="tools-config-error">{e}</p> })
            }}
            {move || {
                let list = servers();
                if list.is_empty() {
                    return view! { <p class="muted empty">"No hosted MCP servers. Start the bridge with --mcp-config FILE (an mcp.json) to host some."</p> }.into_any();
                }
                view! {
                    <ul class="servers">
                        {list.into_iter().map(|server| view! { <ServerRow server=server selected=selected /> }).collect_view()}
                    </ul>
                }.into_any()
            }}
        </div>
    }
}

#[component]
fn ServerRow(server: Value, selected: RwSignal<Option<String>>) -> impl IntoView {
    let id = server["id"].as_str().unwrap_or("?").to_owned();
    let state = server["state"].as_str().unwrap_or("unknown").to_owned();
    let count = server["tool_count"].as_u64().unwrap_or(0);
    let last_error = server["last_error"].as_str().map(str::to_owned);
    let tools = server["tools"].as_array().cloned().unwrap_or_default();
    let offline = state != "online";
    let (data_id, data_state) = (id.clone(), state.clone());
    view! {
        <li class="server" data-testid="tools-server" data-id=data_id data-state=data_state>
            <div>
                <span class="name">{id}</span>
                " · " <span class="state" class:error=offline>{state}</span>
                " · " {format!("{count} tools")}
            </div>
            {last_error.map(|e| view! { <div class="error">{e}</div> })}
            <ul class="tool-list">
                {tools.into_iter().map(|tool| {
                    let name = tool["name"].as_str().unwrap_or_default().to_owned();
                    let description = tool["description"].as_str().unwrap_or_default().to_owned();
                    let pick = name.clone();
                    let is_selected = name.clone();
                    let data_name = name.clone();
                    // What the chat and agents must do before it runs (mcp.json's policy).
                    let policy = tool["policy"].as_str().unwrap_or("allow").to_owned();
                    let why = tool["policy_reason"].as_str().unwrap_or_default().to_owned();
                    let mark = match policy.as_str() {
                        "confirm" => Some(" · asks first"),
                        "deny" => Some(" · denied"),
                        _ => None,
                    };
                    view! {
                        <li>
                            <a class="tool" class:active=move || selected.with(|s| s.as_deref() == Some(is_selected.as_str()))
                                data-testid="tools-tool" data-name=data_name data-policy=policy title=description
                                on:click=move |_| selected.set(Some(pick.clone()))>{name}</a>
                            {mark.map(|mark| view! { <span class="muted" title=why>{mark}</span> })}
                        </li>
                    }
                }).collect_view()}
            </ul>
        </li>
    }
}

#[component]
fn ToolForm(
    hosted: Hosted,
    link: StoredValue<Link, LocalStorage>,
    name: String,
    description: String,
    schema: Value,
) -> impl IntoView {
    let fields = fields(&schema);
    let values = RwSignal::new(
        fields
            .iter()
            .map(|f| (f.name.clone(), f.initial.clone()))
            .collect::<HashMap<_, _>>(),
    );
    let errors = RwSignal::new(HashMap::<String, String>::new());
    let schema_text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    let inputs = fields
        .iter()
        .cloned()
        .map(|field| view! { <FieldInput field=field values=values errors=errors /> })
        .collect_view();
    let fields = StoredValue::new(fields);
    let (tool, data_name) = (name.clone(), name.clone());
    let submit = move |event: web_sys::SubmitEvent| {
        event.prevent_default();
        let built = fields.with_value(|f| values.with_untracked(|v| arguments(f, v)));
        match built {
            Ok(args) => {
                errors.set(HashMap::new());
                link.with_value(|link| hosted.call(link, tool.clone(), args));
            }
            Err(found) => errors.set(found),
        }
    };
    view! {
        <section class="tool-form" data-testid="tools-form" data-name=data_name>
            <h4>{name}</h4>
            <p class="muted">{description}</p>
            <details>
                <summary>"Input schema"</summary>
                <pre class="snippet" data-testid="tools-schema">{schema_text}</pre>
            </details>
            <form on:submit=submit>
                {inputs}
                <button type="submit" data-testid="tools-call" disabled=move || hosted.pending.with(Option::is_some)>
                    {move || if hosted.pending.with(Option::is_some) { "Calling…" } else { "Call" }}
                </button>
            </form>
            <ResultView hosted=hosted />
        </section>
    }
}

#[component]
fn FieldInput(
    field: Field,
    values: RwSignal<HashMap<String, String>>,
    errors: RwSignal<HashMap<String, String>>,
) -> impl IntoView {
    let key = field.name.clone();
    let label = if field.name == WHOLE {
        "arguments".to_owned()
    } else {
        field.name.clone()
    };
    let testid = format!(
        "tools-field-{}",
        if field.name == WHOLE {
            "args"
        } else {
            &field.name
        }
    );
    let current = {
        let key = key.clone();
        move || values.with(|v| v.get(&key).cloned().unwrap_or_default())
    };
    let set = {
        let key = key.clone();
        move |text: String| {
            values.update(|v| {
                v.insert(key.clone(), text);
            })
        }
    };
    let error = {
        let key = key.clone();
        move || errors.with(|e| e.get(&key).cloned())
    };
    let input = match &field.kind {
        Kind::Boolean | Kind::Choice(_) => {
            let options = match &field.kind {
                Kind::Choice(options) => options.clone(),
                _ => vec!["true".into(), "false".into()],
            };
            let initial = current();
            view! {
                <select data-testid=testid on:change=move |e| set(event_target_value(&e))>
                    <option value="" selected={initial.is_empty()}>"—"</option>
                    {options.into_iter().map(|o| view! { <option value=o.clone() selected={o == initial}>{o.clone()}</option> }).collect_view()}
                </select>
            }.into_any()
        }
        Kind::Json => view! {
            <textarea data-testid=testid rows="4" spellcheck="false" prop:value=current on:input=move |e| set(event_target_value(&e))></textarea>
        }.into_any(),
        Kind::Number | Kind::Integer => view! {
            <input type="text" data-testid=testid prop:value=current on:input=move |e| set(event_target_value(&e)) />
        }.into_any(),
        Kind::Text => view! {
            <input type="text" data-testid=testid prop:value=current on:input=move |e| set(event_target_value(&e)) />
        }.into_any(),
    };
    let hint = match &field.kind {
        Kind::Text => "string",
        Kind::Number => "number",
        Kind::Integer => "integer",
        Kind::Boolean => "boolean",
        Kind::Choice(_) => "one of",
        Kind::Json => "JSON",
    };
    view! {
        <label class="field">
            <span class="field-name">{label}{field.required.then_some(view! { <span class="required" title="required">" *"</span> })}</span>
            <span class="muted">" " {hint} " " {field.description}</span>
            {input}
            {move || error().map(|e| view! { <span class="error field-error" data-testid="tools-field-error">{e}</span> })}
        </label>
    }
}

#[component]
fn ResultView(hosted: Hosted) -> impl IntoView {
    view! {
        <div class="tool-result" data-testid="tools-result"
            data-state=move || if hosted.pending.with(Option::is_some) { "pending" } else { hosted.result.with(|r| match r { None => "none", Some(r) if r.error => "error", Some(_) => "ok" }) }>
            {move || hosted.result.get().map(|Shown { error, texts, ms }| view! {
                <p class="muted">{if error { "Error" } else { "Result" }}{ms.map(|ms| format!(" · {ms} ms"))}</p>
                {texts.into_iter().map(|t| view! { <pre class="snippet" class:error=error>{t}</pre> }).collect_view()}
            })}
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nexus_shared::{ErrorCode, ToolError, ToolOutput};
    use serde_json::json;

    fn field(schema: Value, name: &str) -> Field {
        fields(&schema)
            .into_iter()
            .find(|f| f.name == name)
            .expect("field")
    }

    #[test]
    fn schema_properties_become_typed_fields() {
        let schema = json!({"type": "object", "required": ["message"], "properties": {
            "message": {"type": "string", "description": "what to echo"},
            "n": {"type": "integer", "default": 3},
            "x": {"type": ["number", "null"]},
            "loud": {"type": "boolean"},
            "mode": {"type": "string", "enum": ["a", "b"]},
            "tags": {"type": "array", "items": {"type": "string"}},
            "odd": {"anyOf": [{"type": "string"}, {"type": "number"}]},
        }});
        let message = field(schema.clone(), "message");
        assert_eq!(message.kind, Kind::Text);
        assert!(message.required);
        assert_eq!(message.description, "what to echo");
        let n = field(schema.clone(), "n");
        assert_eq!(
            (n.kind, n.required, n.initial.as_str()),
            (Kind::Integer, false, "3")
        );
        assert_eq!(field(schema.clone(), "x").kind, Kind::Number);
        assert_eq!(field(schema.clone(), "loud").kind, Kind::Boolean);
        assert_eq!(
            field(schema.clone(), "mode").kind,
            Kind::Choice(vec!["a".into(), "b".into()])
        );
        assert_eq!(field(schema.clone(), "tags").kind, Kind::Json);
        assert_eq!(field(schema, "odd").kind, Kind::Json);
    }

    #[test]
    fn schemas_without_properties_take_raw_json() {
        for schema in [
            json!({}),
            json!(null),
            json!("weird"),
            json!({"properties": [1]}),
        ] {
            let found = fields(&schema);
            assert_eq!(found.len(), 1, "{schema}");
            assert_eq!(
                (found[0].name.as_str(), &found[0].kind),
                (WHOLE, &Kind::Json)
            );
        }
        let whole = fields(&json!({}));
        let values = HashMap::from([(WHOLE.to_owned(), r#"{"a": 1}"#.to_owned())]);
        assert_eq!(
            arguments(&whole, &values),
            Ok(Map::from_iter([("a".into(), json!(1))]))
        );
        let values = HashMap::from([(WHOLE.to_owned(), "[1]".to_owned())]);
        assert!(arguments(&whole, &values).is_err());
    }

    #[test]
    fn typed_values_become_arguments_and_bad_ones_inline_errors() {
        let schema = json!({"required": ["message", "n"], "properties": {
            "message": {"type": "string"}, "n": {"type": "integer"}, "r": {"type": "number"},
            "loud": {"type": "boolean"}, "tags": {"type": "array"}, "skip": {"type": "string"},
        }});
        let form = fields(&schema);
        let typed = |pairs: &[(&str, &str)]| -> HashMap<String, String> {
            pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect()
        };
        let args = arguments(
            &form,
            &typed(&[
                ("message", "hi"),
                ("n", " 4 "),
                ("r", "2.5"),
                ("loud", "true"),
                ("tags", r#"["a"]"#),
            ]),
        )
        .expect("valid");
        assert_eq!(
            Value::Object(args),
            json!({"message": "hi", "n": 4, "r": 2.5, "loud": true, "tags": ["a"]})
        );
        let errors = arguments(
            &form,
            &typed(&[("n", "four"), ("r", "NaN"), ("tags", "[1,")]),
        )
        .expect_err("invalid");
        assert_eq!(errors["message"], "required");
        assert!(errors["n"].contains("not a whole number"), "{errors:?}");
        assert!(errors["r"].contains("not a number"), "{errors:?}");
        assert!(errors["tags"].starts_with("invalid JSON"), "{errors:?}");
        assert!(!errors.contains_key("skip"));
    }

    #[test]
    fn results_show_text_content_and_errors() {
        let ok = Outcome::Ok(ToolOutput {
            text: json!({"content": [{"type": "text", "text": "Echo: hi"},
                {"type": "image", "mimeType": "image/png", "data": "AAAA"}]})
            .to_string(),
        });
        let shown_ok = shown(&ok, 7);
        assert_eq!(
            shown_ok.texts,
            ["Echo: hi", "[image image/png, 4 characters]"]
        );
        assert!(!shown_ok.error);
        let tool_error = Outcome::Ok(ToolOutput {
            text: json!({"content": [{"type": "text", "text": "boom"}], "isError": true})
                .to_string(),
        });
        assert!(shown(&tool_error, 1).error);
        let hub_error = Outcome::Err(ToolError::new(ErrorCode::Internal, "no such tool"));
        let shown_err = shown(&hub_error, 0);
        assert!(shown_err.error);
        assert!(shown_err.texts[0].contains("no such tool"));
        let plain = Outcome::Ok(ToolOutput {
            text: "not json".into(),
        });
        assert_eq!(shown(&plain, 0).texts, ["not json"]);
    }
}

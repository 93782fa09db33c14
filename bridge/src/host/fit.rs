//! Hosted frames within the frame cap (`MAX_FRAME_BYTES`, which the page and peers enforce): a
//! registry too large loses guidance, schemas, descriptions, then tools, and says so; a result too
//! large is sent compact, else cut with a note.

use nexus_shared::limits::MAX_FRAME_BYTES;
use nexus_shared::{CallId, Frame, Outcome, ToolOutput};
use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::{Value, json};

/// Room kept below the cap for the notes a shortened registry gains.
const NOTE_ROOM: usize = 4 * 1024;
/// Guidance and descriptions kept (characters) once the registry is too large.
const GUIDANCE_CHARS: usize = 2_000;
const DESCRIPTION_CHARS: usize = 300;

/// One way of making every server's entry smaller.
type Shorten = fn(&mut Value);

/// `Hosted { registry }`, shortened until it fits one frame; `registry.truncated` says what went.
pub fn registry_frame(registry: Value) -> Frame {
    let mut frame = Frame::Hosted { registry };
    if fits(&frame) {
        return frame;
    }
    let Frame::Hosted { registry } = &mut frame else {
        return frame;
    };
    let mut left_out = Vec::new();
    let steps: [(&str, Shorten); 3] = [
        ("guidance shortened", shorten_guidance),
        ("input schemas left out", drop_schemas),
        ("descriptions shortened", shorten_descriptions),
    ];
    for (note, step) in steps {
        for server in servers(registry) {
            step(server);
        }
        left_out.push(note);
        registry["truncated"] = truncation_note(&left_out).into();
        if size(registry) + NOTE_ROOM <= MAX_FRAME_BYTES {
            return frame;
        }
    }
    drop_tools(registry);
    left_out.push("tools left out (see `tools_omitted` per server)");
    registry["truncated"] = truncation_note(&left_out).into();
    frame
}

fn truncation_note(left_out: &[&str]) -> String {
    format!(
        "the registry is over the {MAX_FRAME_BYTES}-byte frame limit: {}; `nexus-bridge status` and nexus://health show it whole",
        left_out.join(", ")
    )
}

/// Drops tools from the end of the longest lists until the registry fits.
fn drop_tools(registry: &mut Value) {
    let mut excess = (size(registry) + NOTE_ROOM).saturating_sub(MAX_FRAME_BYTES);
    while excess > 0 {
        let longest = servers(registry)
            .filter_map(|server| {
                server["tools"]
                    .as_array()
                    .map(Vec::len)
                    .map(|n| (n, server))
            })
            .max_by_key(|(n, _)| *n);
        let Some((_, server)) = longest else {
            return;
        };
        let Some(removed) = server["tools"].as_array_mut().and_then(Vec::pop) else {
            return;
        };
        server["tools_omitted"] = (server["tools_omitted"].as_u64().unwrap_or(0) + 1).into();
        excess = excess.saturating_sub(removed.to_string().len() + 1);
    }
}

fn shorten_guidance(server: &mut Value) {
    if let Some(text) = server["guidance"].as_str() {
        server["guidance"] = cut_chars(text, GUIDANCE_CHARS).into();
    }
}

fn drop_schemas(server: &mut Value) {
    for tool in tools(server) {
        tool["input_schema"] = json!({"type": "object"});
        tool["schema_omitted"] = true.into();
    }
}

fn shorten_descriptions(server: &mut Value) {
    for tool in tools(server) {
        if let Some(text) = tool["description"].as_str() {
            tool["description"] = cut_chars(text, DESCRIPTION_CHARS).into();
        }
    }
}

fn servers(registry: &mut Value) -> impl Iterator<Item = &mut Value> {
    registry["servers"]
        .as_array_mut()
        .map(|servers| servers.iter_mut())
        .into_iter()
        .flatten()
}

fn tools(server: &mut Value) -> impl Iterator<Item = &mut Value> {
    server["tools"]
        .as_array_mut()
        .map(|tools| tools.iter_mut())
        .into_iter()
        .flatten()
}

fn cut_chars(text: &str, chars: usize) -> String {
    match text.char_indices().nth(chars) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// `HostedResult` of a server's answer: pretty JSON if it fits one frame, else compact, else
/// the text of its content cut to fit with a note (still a valid `CallToolResult`).
pub fn result_frame(id: CallId, result: &CallToolResult, ms: u64) -> Frame {
    let frame = |text: String| Frame::HostedResult {
        id: id.clone(),
        outcome: Outcome::Ok(ToolOutput { text }),
        ms,
    };
    for text in [
        serde_json::to_string_pretty(result),
        serde_json::to_string(result),
    ]
    .into_iter()
    .flatten()
    {
        let candidate = frame(text);
        if fits(&candidate) {
            return candidate;
        }
    }
    let whole: String = result
        .content
        .iter()
        .map(|block| match block.as_text() {
            Some(text) => text.text.clone(),
            None => "[non-text content left out]".to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    let mut budget = MAX_FRAME_BYTES.min(whole.len());
    loop {
        let kept = cut_bytes(&whole, budget);
        let note = format!(
            "\n… [cut: the result is {} bytes of text, {} shown, over the {MAX_FRAME_BYTES}-byte frame limit]",
            whole.len(),
            kept.len()
        );
        let content = vec![ContentBlock::text(format!("{kept}{note}"))];
        let cut = match result.is_error {
            Some(true) => CallToolResult::error(content),
            _ => CallToolResult::success(content),
        };
        let candidate = frame(serde_json::to_string(&cut).unwrap_or_default());
        let bytes = candidate.encode().len();
        if bytes <= MAX_FRAME_BYTES || budget == 0 {
            return candidate;
        }
        // Escaping grows text unevenly: shrink in proportion, with a margin.
        budget = budget * MAX_FRAME_BYTES / bytes * 9 / 10;
    }
}

fn cut_bytes(text: &str, bytes: usize) -> &str {
    let mut end = bytes.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

fn fits(frame: &Frame) -> bool {
    frame.encode().len() <= MAX_FRAME_BYTES
}

fn size(value: &Value) -> usize {
    Frame::Hosted {
        registry: value.clone(),
    }
    .encode()
    .len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn registry(servers: usize, tools: usize, schema_bytes: usize) -> Value {
        let servers: Vec<Value> = (0..servers)
            .map(|s| {
                let tools: Vec<Value> = (0..tools)
                    .map(|t| {
                        json!({
                            "name": format!("s{s}:t{t}"),
                            "description": "d".repeat(1000),
                            "input_schema": {"type": "object", "description": "x".repeat(schema_bytes)},
                        })
                    })
                    .collect();
                json!({"id": format!("s{s}"), "state": "online", "guidance": "g".repeat(10_000), "tools": tools})
            })
            .collect();
        json!({"config": "/m.json", "servers": servers})
    }

    fn registry_of(frame: &Frame) -> &Value {
        match frame {
            Frame::Hosted { registry } => registry,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_small_registry_goes_as_it_is() {
        let small = registry(2, 3, 100);
        let frame = registry_frame(small.clone());
        assert_eq!(registry_of(&frame), &small);
    }

    #[test]
    fn large_schemas_are_left_out_first_and_said_so() {
        let frame = registry_frame(registry(3, 40, 20_000));
        assert!(fits(&frame));
        let registry = registry_of(&frame);
        let note = registry["truncated"].as_str().unwrap();
        assert!(note.contains("input schemas left out"), "{note}");
        assert!(!note.contains("tools left out"), "{note}");
        let tool = &registry["servers"][0]["tools"][39];
        assert_eq!(tool["schema_omitted"], true);
        assert_eq!(tool["name"], "s0:t39");
    }

    #[test]
    fn too_many_tools_are_left_out_and_counted() {
        let frame = registry_frame(registry(2, 2_000, 10));
        assert!(fits(&frame), "{}", frame.encode().len());
        let registry = registry_of(&frame);
        let note = registry["truncated"].as_str().unwrap();
        assert!(note.contains("tools left out"), "{note}");
        let servers = registry["servers"].as_array().unwrap();
        for server in servers {
            let kept = server["tools"].as_array().unwrap().len() as u64;
            assert_eq!(kept + server["tools_omitted"].as_u64().unwrap(), 2_000);
            assert!(kept > 100, "{kept}");
        }
    }

    fn text_of(frame: &Frame) -> String {
        match frame {
            Frame::HostedResult {
                outcome: Outcome::Ok(output),
                ..
            } => output.text.clone(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn results_go_pretty_compact_or_cut_with_a_note() {
        let small = CallToolResult::success(vec![ContentBlock::text("hi")]);
        let text = text_of(&result_frame("c".into(), &small, 1));
        assert!(text.contains('\n'), "pretty: {text}");

        // Quotes and control characters double in size with each escaping.
        let nasty = "\"\u{1}".repeat(200_000);
        let big = CallToolResult::error(vec![ContentBlock::text(nasty.clone())]);
        let frame = result_frame("c".into(), &big, 1);
        assert!(fits(&frame), "{}", frame.encode().len());
        let cut: CallToolResult = serde_json::from_str(&text_of(&frame)).unwrap();
        assert_eq!(cut.is_error, Some(true));
        let cut = cut.content[0].as_text().expect("text");
        assert!(
            cut.text.contains("[cut: the result is 400000 bytes"),
            "{}",
            &cut.text[cut.text.len() - 200..]
        );
        assert!(nasty.starts_with(cut.text.split("\n… [cut").next().unwrap()));
    }
}

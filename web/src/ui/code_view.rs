//! The code view: a file with syntax colours and line numbers, the chosen lines marked and
//! scrolled to; a definition's line number selects that symbol.

use std::collections::HashMap;

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::state::{CodeTarget, json_of, use_app};
use crate::worker::protocol::CodeView as CodeFile;
use nexus_engine::syntax::{Class, Line};

/// Files longer than this show a window of lines around the marked ones.
const MAX_LINES: usize = 3000;

fn class_name(class: Class) -> &'static str {
    match class {
        Class::Plain => "",
        Class::Keyword => "tok-kw",
        Class::String => "tok-str",
        Class::Number => "tok-num",
        Class::Comment => "tok-com",
        Class::Type => "tok-type",
        Class::Function => "tok-fn",
        Class::Constant => "tok-const",
    }
}

/// The 1-based line range to render for a file of `total` lines around `start`.
fn window(total: usize, start: u32) -> (usize, usize) {
    if total <= MAX_LINES {
        return (1, total);
    }
    let first = (start as usize).saturating_sub(MAX_LINES / 3).max(1);
    let last = (first + MAX_LINES - 1).min(total);
    (last + 1 - MAX_LINES.min(last), last)
}

#[component]
pub fn CodeView() -> impl IntoView {
    let app = use_app();
    let file = RwSignal::new(None::<Result<CodeFile, String>>);
    let loaded_path = StoredValue::new(String::new());
    Effect::new(move |_| {
        let Some(target) = app.code.get() else { return };
        if loaded_path.get_value() == target.path {
            scroll_to(target.start);
            return;
        }
        loaded_path.set_value(target.path.clone());
        app.engine.with_value(|engine| {
            engine.code(
                &target.path,
                Box::new(move |outcome| {
                    let result = json_of(outcome).and_then(|v| {
                        serde_json::from_value::<CodeFile>(v).map_err(|e| e.to_string())
                    });
                    file.set(Some(result));
                    scroll_to(target.start);
                }),
            );
        });
    });
    // Definitions in the shown file, by line: their line numbers select them.
    let definitions = Memo::new(move |_| {
        let path = app.code.with(|t| t.as_ref().map(|t| t.path.clone()))?;
        app.picture.with(|p| {
            let p = p.as_ref()?;
            let mut lines: HashMap<u32, u32> = HashMap::new();
            for (i, node) in p.view.nodes.iter().enumerate() {
                if node.kind.is_symbol() && p.path_of(i as u32) == Some(path.as_str()) {
                    lines.entry(node.start_line).or_insert(i as u32);
                }
            }
            Some(lines)
        })
    });
    let render = move |code: CodeFile, target: CodeTarget| {
        let total = code.lines.len();
        let (first, last) = window(total, target.start);
        let defs = definitions.get_untracked().unwrap_or_default();
        let rows = code
            .lines
            .into_iter()
            .enumerate()
            .skip(first - 1)
            .take(last + 1 - first)
            .map(|(i, line): (usize, Line)| {
                let number = i as u32 + 1;
                let marked = number >= target.start && number <= target.end;
                let def = defs.get(&number).copied();
                view! {
                    <div class="line" class:marked=marked id=format!("L{number}")>
                        <a class="ln" class:def=def.is_some() on:click=move |_| { if let Some(d) = def { app.select(d) } }>{number}</a>
                        <span class="src">{line.into_iter().map(|(class, text)| view! { <span class=class_name(class)>{text}</span> }).collect_view()}</span>
                    </div>
                }
            })
            .collect_view();
        view! {
            <p class="muted code-path" data-testid="code-path">{code.path}
                {(first > 1 || last < total).then(|| format!(" · lines {first}–{last} of {total}"))}
            </p>
            <pre class="code" data-testid="code">{rows}</pre>
        }
    };
    view! {
        <div class="code-view" data-testid="code-view">
            {move || match (file.get(), app.code.get()) {
                (Some(Ok(code)), Some(target)) => render(code, target).into_any(),
                (Some(Err(message)), _) => view! { <p class="error">{message}</p> }.into_any(),
                _ => view! { <p class="muted empty">"Pick a file in Files, or a symbol's place in Details, to read its code."</p> }.into_any(),
            }}
        </div>
    }
}

/// Scrolls the code view so that `line` is in sight, once the lines are in the page.
fn scroll_to(line: u32) {
    request_animation_frame(move || {
        let element = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.get_element_by_id(&format!("L{}", line.max(1))));
        if let Some(element) = element.and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()) {
            element.scroll_into_view_with_bool(true);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_files_show_whole_and_long_ones_a_window_around_the_mark() {
        assert_eq!(window(10, 5), (1, 10));
        assert_eq!(window(0, 1), (1, 0));
        let (first, last) = window(10_000, 5_000);
        assert_eq!(last + 1 - first, MAX_LINES);
        assert!(first <= 5_000 && 5_000 <= last);
        assert_eq!(window(10_000, 1), (1, MAX_LINES));
        let (first, last) = window(10_000, 9_999);
        assert_eq!(last, 10_000);
        assert_eq!(last + 1 - first, MAX_LINES);
    }
}

//! Markdown from a model or a tool as safe HTML: pulldown-cmark parses, raw HTML is shown as text,
//! only http(s)/mailto links survive, images become their text, graph references become links.

use leptos::prelude::*;
use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, TagEnd};
use pulldown_cmark_escape::escape_html;
use wasm_bindgen::JsCast;

use super::refs::{Piece, Target, split};
use super::state::{AppState, CodeTarget, Tab, use_app};

/// Rendered Markdown whose graph references select their node and open its code when clicked.
#[component]
pub fn Markdown(source: String, #[prop(into)] testid: String) -> impl IntoView {
    let app = use_app();
    let known = move |id: &str| {
        app.picture
            .with_untracked(|p| p.as_ref().is_some_and(|p| p.find(id).is_some()))
    };
    // Drawn again when another picture arrives: references become links once their node is drawn
    // (a resumed conversation may arrive before the restored graph).
    let html = move || {
        app.picture.track();
        render(&source, &known)
    };
    view! {
        <div class="md" data-testid=testid inner_html=html on:click=move |e| follow(&app, &e)></div>
    }
}

/// Follows a click on a rendered reference: the node is selected and its code (or the line's
/// file at that line) opens.
pub fn follow(app: &AppState, event: &web_sys::MouseEvent) {
    let Some(link) = event
        .target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .and_then(|e| {
            e.closest("a.symbol[data-node], a.ref[data-path]")
                .ok()
                .flatten()
        })
    else {
        return;
    };
    event.prevent_default();
    if let Some(id) = link.get_attribute("data-node") {
        let index = app
            .picture
            .with_untracked(|p| p.as_ref().and_then(|p| p.find(&id)));
        if let Some(index) = index {
            app.select(index);
            app.open_code_of(index);
        }
        return;
    }
    let (Some(path), Some(line)) = (
        link.get_attribute("data-path"),
        link.get_attribute("data-line")
            .and_then(|l| l.parse::<u32>().ok()),
    ) else {
        return;
    };
    app.select_id(&format!("File:{path}"));
    app.code.set(Some(CodeTarget {
        path,
        start: line,
        end: line,
    }));
    app.tab.set(Tab::Code);
}

/// Link schemes a rendered answer may keep; anything else (`javascript:`, `data:`, relative
/// addresses into the bridge) becomes plain text.
const SAFE_SCHEMES: [&str; 3] = ["https://", "http://", "mailto:"];

/// Renders `source` to HTML that is safe to put into the page. References `known` accepts become
/// `<a class="symbol" data-node=…>` (symbol ids) or `<a class="ref" data-path=… data-line=…>`
/// (`file:line`), for the click handler of the element that shows it.
pub fn render(source: &str, known: &dyn Fn(&str) -> bool) -> String {
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut events: Vec<Event> = Vec::new();
    // Links dropped as unsafe, and whether each open link was kept; images opened.
    let mut links: Vec<bool> = Vec::new();
    let mut in_code_block = false;
    for event in Parser::new_ext(source, options) {
        match event {
            // Raw HTML from a model never reaches the DOM: it is shown as the text it is.
            Event::Html(html) | Event::InlineHtml(html) => events.push(Event::Text(html)),
            Event::Start(Tag::HtmlBlock) | Event::End(TagEnd::HtmlBlock) => {}
            Event::Start(Tag::Link { dest_url, .. }) => {
                let safe = SAFE_SCHEMES
                    .iter()
                    .any(|scheme| dest_url.to_ascii_lowercase().starts_with(scheme));
                if safe {
                    let mut open = String::from(r#"<a href=""#);
                    escape_html(&mut open, &dest_url).ok();
                    open.push_str(r#"" target="_blank" rel="noopener noreferrer">"#);
                    events.push(Event::InlineHtml(open.into()));
                }
                links.push(safe);
            }
            Event::End(TagEnd::Link) => {
                if links.pop() == Some(true) {
                    events.push(Event::InlineHtml("</a>".into()));
                }
            }
            // An image would load from wherever the model says: its text stands in.
            Event::Start(Tag::Image { .. }) | Event::End(TagEnd::Image) => {}
            Event::Start(Tag::CodeBlock(kind)) => {
                in_code_block = true;
                events.push(Event::Start(Tag::CodeBlock(kind)));
            }
            Event::End(TagEnd::CodeBlock) => {
                in_code_block = false;
                events.push(Event::End(TagEnd::CodeBlock));
            }
            Event::Text(text) if !in_code_block && links.is_empty() => {
                linked(&text, known, false, &mut events);
            }
            Event::Code(code) if links.is_empty() => linked(&code, known, true, &mut events),
            other => events.push(other),
        }
    }
    let mut html = String::with_capacity(source.len() * 3 / 2);
    pulldown_cmark::html::push_html(&mut html, events.into_iter());
    html
}

/// Pushes `text` (inline code when `code`) with its references as links.
fn linked<'a>(text: &str, known: &dyn Fn(&str) -> bool, code: bool, events: &mut Vec<Event<'a>>) {
    let pieces = split(text, known);
    if let [Piece::Text(_)] | [] = pieces.as_slice() {
        events.push(plain(text, code));
        return;
    }
    for piece in pieces {
        match piece {
            Piece::Text(part) => events.push(plain(part, code)),
            Piece::Ref { text, target } => {
                let mut html = match &target {
                    Target::Node(id) => {
                        let mut open = String::from(r#"<a class="symbol" data-node=""#);
                        escape_html(&mut open, id).ok();
                        open
                    }
                    Target::Line { path, line } => {
                        let mut open = String::from(r#"<a class="ref" data-path=""#);
                        escape_html(&mut open, path).ok();
                        open.push_str(&format!(r#"" data-line="{line}"#));
                        open
                    }
                };
                html.push_str(r#"">"#);
                if code {
                    html.push_str("<code>");
                }
                escape_html(&mut html, text).ok();
                if code {
                    html.push_str("</code>");
                }
                html.push_str("</a>");
                events.push(Event::InlineHtml(html.into()));
            }
        }
    }
}

fn plain<'a>(text: &str, code: bool) -> Event<'a> {
    let text = CowStr::from(text.to_owned());
    if code {
        Event::Code(text)
    } else {
        Event::Text(text)
    }
}

/// The browser's own HTML parser reads the rendered text: no element or attribute in it can run
/// anything or load anything.
#[cfg(all(test, target_arch = "wasm32"))]
mod browser_tests {
    use super::*;
    use wasm_bindgen_test::*;

    const HOSTILE: &str = "<script>alert(1)</script>\n\n<img src=x onerror=alert(2)> <svg onload=alert(3)> \
        [x](javascript:alert(4)) [y](/api/repo.zip) ![z](https://e.example/x.png) \
        <iframe src=//e.example></iframe> `Method:shop/cart.py:Cart.checkout` \"><b onclick=alert(5)>x</b>";

    #[wasm_bindgen_test]
    fn hostile_model_text_parses_into_nothing_active() {
        let document = web_sys::window().and_then(|w| w.document()).unwrap();
        let host = document.create_element("div").unwrap();
        let known = |id: &str| id == "Method:shop/cart.py:Cart.checkout";
        host.set_inner_html(&render(HOSTILE, &known));
        for selector in [
            "script",
            "img",
            "svg",
            "iframe",
            "style",
            "b",
            "[onerror]",
            "[onload]",
            "[onclick]",
            "a[href^='javascript']",
            "a[href^='/']",
        ] {
            assert!(
                host.query_selector(selector).unwrap().is_none(),
                "{selector}"
            );
        }
        let link = host.query_selector("a.symbol").unwrap().unwrap();
        assert_eq!(
            link.get_attribute("data-node").as_deref(),
            Some("Method:shop/cart.py:Cart.checkout")
        );
        let text = host.text_content().unwrap_or_default();
        assert!(text.contains("<script>alert(1)</script>"), "{text}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known(id: &str) -> bool {
        matches!(
            id,
            "Method:shop/cart.py:Cart.checkout" | "File:shop/cart.py"
        )
    }

    fn none(_: &str) -> bool {
        false
    }

    #[test]
    fn markdown_becomes_html() {
        let html = render(
            "# Title\n\nSome **bold** and `code`.\n\n- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```rust\nfn x() {}\n```",
            &none,
        );
        for part in [
            "<h1>Title</h1>",
            "<strong>bold</strong>",
            "<code>code</code>",
            "<li>one</li>",
            "<table>",
            "<td>2</td>",
            r#"<pre><code class="language-rust">fn x() {}"#,
        ] {
            assert!(html.contains(part), "{part} missing from {html}");
        }
    }

    #[test]
    fn raw_html_from_a_model_is_shown_as_text() {
        let html = render(
            "<script>alert(1)</script>\n\nhi <img src=x onerror=alert(2)> <b>b</b>",
            &none,
        );
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("<img"), "{html}");
        assert!(!html.contains("<b>"), "{html}");
        assert!(
            html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
            "{html}"
        );
        assert!(
            html.contains("&lt;img src=x onerror=alert(2)&gt;"),
            "{html}"
        );
    }

    #[test]
    fn only_safe_links_survive_and_images_become_text() {
        let html = render(
            "[ok](https://example.com/a?b=\"c\") [bad](javascript:alert(1)) [rel](/api/repo.zip) ![pic](https://evil/x.png)",
            &none,
        );
        assert!(
            html.contains(r#"<a href="https://example.com/a?b=&quot;c&quot;" target="_blank" rel="noopener noreferrer">ok</a>"#),
            "{html}"
        );
        assert!(!html.contains("javascript"), "{html}");
        assert!(!html.contains("/api/repo.zip"), "{html}");
        assert!(!html.contains("<img"), "{html}");
        assert!(
            html.contains("bad") && html.contains("rel") && html.contains("pic"),
            "{html}"
        );
    }

    #[test]
    fn references_become_links_in_text_and_inline_code_but_not_in_code_blocks() {
        let html = render(
            "It is `Method:shop/cart.py:Cart.checkout`, at shop/cart.py:12.\n\n```\nshop/cart.py:12\n```",
            &known,
        );
        assert!(
            html.contains(r#"<a class="symbol" data-node="Method:shop/cart.py:Cart.checkout"><code>Method:shop/cart.py:Cart.checkout</code></a>"#),
            "{html}"
        );
        assert!(
            html.contains(
                r#"at <a class="ref" data-path="shop/cart.py" data-line="12">shop/cart.py:12</a>."#
            ),
            "{html}"
        );
        assert!(
            html.contains("<pre><code>shop/cart.py:12\n</code></pre>"),
            "{html}"
        );
    }

    #[test]
    fn references_carry_their_text_escaped() {
        let odd = |id: &str| id == "Function:a&b.py:f";
        let html = render("`Function:a&b.py:f`", &odd);
        assert!(
            html.contains(
                r#"data-node="Function:a&amp;b.py:f"><code>Function:a&amp;b.py:f</code>"#
            ),
            "{html}"
        );
    }

    #[test]
    fn unfinished_markdown_while_streaming_renders() {
        let html = render("Some **bold and `code", &none);
        assert!(html.starts_with("<p>"), "{html}");
        let html = render("```\nfn x(", &none);
        assert!(html.contains("fn x("), "{html}");
    }

    #[cfg(not(target_arch = "wasm32"))]
    mod fuzz {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #[test]
            fn no_input_yields_a_tag_outside_the_allowed_set(text in "[<>a-z\"'=/ `*\\[\\]():!\n-]{0,120}") {
                let html = render(&text, &|_| true);
                let mut rest = html.as_str();
                while let Some(at) = rest.find('<') {
                    rest = &rest[at + 1..];
                    let name: String = rest.trim_start_matches('/').chars().take_while(|c| c.is_ascii_alphanumeric()).collect();
                    prop_assert!(
                        ["p", "a", "code", "pre", "em", "strong", "del", "ul", "ol", "li", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "hr", "br", "table", "thead", "tbody", "tr", "th", "td", "input"].contains(&name.as_str()),
                        "tag {name} in {html}"
                    );
                }
            }
        }
    }
}

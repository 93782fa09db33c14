//! Entry point of the web app: mounts the Leptos UI into the page.

fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(nexus_web::ui::App);
}

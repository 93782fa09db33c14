//! Entry point of the engine worker bin (`nexus-worker`), started by the page.

fn main() {
    nexus_web::worker::run();
}

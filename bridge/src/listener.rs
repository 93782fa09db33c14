//! Who holds the hub's port: on Linux, the owner of every listening socket on it, from
//! `/proc/net/tcp` and `/proc/net/tcp6`. Peers and `status` refuse a port another user holds.

/// Refuses when a listening socket on `port` belongs to another user (Linux); elsewhere there
/// is no such table and the proof of the token alone decides.
pub fn check_owner(port: u16) -> Result<(), String> {
    if !cfg!(target_os = "linux") {
        return Ok(());
    }
    // SAFETY: getuid has no preconditions and cannot fail.
    let uid = unsafe { libc::getuid() };
    let mut others = Vec::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        if let Ok(text) = std::fs::read_to_string(table) {
            others.extend(foreign_listeners(&text, port, uid));
        }
    }
    match others.first() {
        None => Ok(()),
        Some(other) => Err(format!(
            "another program holds port {port}: its listening socket belongs to user {other}, not to this user ({uid})"
        )),
    }
}

/// The owners (uids) other than `uid` of sockets listening on `port` in a `/proc/net/tcp`-style
/// table; lines that do not parse are skipped.
fn foreign_listeners(table: &str, port: u16, uid: u32) -> Vec<u32> {
    const LISTEN: &str = "0A";
    table
        .lines()
        .skip(1)
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let local = fields.get(1)?;
            let state = fields.get(3)?;
            let owner: u32 = fields.get(7)?.parse().ok()?;
            let (_, hex_port) = local.rsplit_once(':')?;
            let listening_on = u16::from_str_radix(hex_port, 16).ok()?;
            (*state == LISTEN && listening_on == port && owner != uid).then_some(owner)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLE: &str = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:D43F 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 1 1 0 100 0 0 10 0
   1: 0100007F:D43F 0100007F:9C40 01 00000000:00000000 00:00000000 00000000  1001        0 2 1 0 20 4 30 10 -1
   2: 00000000:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1002        0 3 1 0 100 0 0 10 0
   3: garbage
";

    #[test]
    fn only_listening_sockets_on_the_port_count() {
        // 0xD43F = 54335: ours listens; another user's connected socket on it is no listener.
        assert!(foreign_listeners(TABLE, 54335, 1000).is_empty());
        assert_eq!(foreign_listeners(TABLE, 54335, 7), vec![1000]);
        // 0x1F90 = 8080 on 0.0.0.0 (which also answers 127.0.0.1) by user 1002.
        assert_eq!(foreign_listeners(TABLE, 8080, 1000), vec![1002]);
        assert!(foreign_listeners(TABLE, 1, 1000).is_empty());
        let six = "  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000000000000:D43F 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1003        0 9 1 0 100 0 0 10 0
";
        assert_eq!(foreign_listeners(six, 54335, 1000), vec![1003]);
    }

    #[test]
    fn a_port_this_user_listens_on_passes() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        assert_eq!(check_owner(port), Ok(()));
    }
}

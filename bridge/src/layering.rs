//! The floor plan of the hub's rooms, as a test: options flow one way into configuration, and
//! `hub` ← `peer` ← `relay` ← `host` ← `cli` depend downwards only (the hub never knows the host).

#[cfg(test)]
mod tests {
    /// Each room's sources, with its floor: a room may name only rooms on lower floors.
    const ROOMS: &[(&str, u8, &[&str])] = &[
        ("hub", 0, &[include_str!("hub.rs")]),
        ("peer", 1, &[include_str!("peer.rs")]),
        ("relay", 2, &[include_str!("relay.rs")]),
        (
            "host",
            3,
            &[
                include_str!("host/mod.rs"),
                include_str!("host/circuit.rs"),
                include_str!("host/config.rs"),
                include_str!("host/consent.rs"),
                include_str!("host/error.rs"),
                include_str!("host/fit.rs"),
                include_str!("host/launch.rs"),
                include_str!("host/policy.rs"),
                include_str!("host/remote.rs"),
                include_str!("host/server.rs"),
                include_str!("host/stdio.rs"),
                include_str!("host/wire.rs"),
            ],
        ),
        ("cli", 4, &[include_str!("cli.rs")]),
    ];

    #[test]
    fn the_rooms_depend_downwards_only() {
        for (room, floor, sources) in ROOMS {
            for (other, other_floor, _) in ROOMS {
                if other_floor < floor || other == room {
                    continue;
                }
                let named = format!("crate::{other}");
                for source in *sources {
                    assert!(
                        !source.contains(&named),
                        "`{room}` (floor {floor}) names `{named}` (floor {other_floor})"
                    );
                }
            }
        }
    }
}

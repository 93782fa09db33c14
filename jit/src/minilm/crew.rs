//! Two threads sharing one forward pass: the owner posts each product's independent parts
//! (weight panels) and a helper thread claims them one at a time, as the owner does.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

/// One part of a posted product, by its index, its lifetime erased (see `Posted::task`).
type Task = dyn Fn(usize) + Sync;

/// Busy-wait rounds before a waiting thread yields its core (a product's gap on the owner is a
/// few microseconds; on a loaded machine the other thread may be off its core for longer).
const SPINS: u32 = 2_000;

/// The posted product: its number, its parts' task and their count.
struct Posted {
    number: u32,
    /// The task with its lifetime erased: dereferenced only after a claim under `number`
    /// succeeds, and the owner stays in [`Crew::run`] (so the task lives) until every claimed
    /// part is done.
    task: Option<*const Task>,
    parts: usize,
}

// SAFETY: the pointer is to a `Sync` closure, called from the helper only while the owner
// keeps it alive (see `Posted::task`).
unsafe impl Send for Posted {}

/// The shared state of one forward pass on two threads.
pub(super) struct Crew {
    /// The posted product's number (high 32 bits) and its next unclaimed part (low 32 bits):
    /// one compare-and-swap claims a part of exactly that product.
    state: AtomicU64,
    posted: Mutex<Posted>,
    /// Parts of the posted product done (by either thread).
    done: AtomicUsize,
    /// The forward pass is over (or its owner unwound): the helper returns.
    over: AtomicBool,
    /// The helper unwound, possibly holding a claimed part: the owner finishes alone.
    lost: AtomicBool,
}

impl Crew {
    pub(super) fn new() -> Crew {
        Crew {
            state: AtomicU64::new(0),
            posted: Mutex::new(Posted {
                number: 0,
                task: None,
                parts: 0,
            }),
            done: AtomicUsize::new(0),
            over: AtomicBool::new(false),
            lost: AtomicBool::new(false),
        }
    }

    /// Runs `task` for every part `0..parts`, sharing them with the helper when it is there;
    /// returns when all are done. Only the owner calls it.
    pub(super) fn run(&self, parts: usize, task: &(dyn Fn(usize) + Sync + '_)) {
        let number = ((self.state.load(Ordering::Relaxed) >> 32) as u32).wrapping_add(1);
        let Ok(count) = u32::try_from(parts) else {
            (0..parts).for_each(task);
            return;
        };
        self.done.store(0, Ordering::Relaxed);
        {
            let mut posted = self.posted.lock().unwrap_or_else(|e| e.into_inner());
            // SAFETY: only the pointer's lifetime changes; see `Posted::task`.
            let erased: *const Task = unsafe {
                std::mem::transmute::<*const (dyn Fn(usize) + Sync + '_), *const Task>(task)
            };
            *posted = Posted {
                number,
                task: Some(erased),
                parts,
            };
        }
        self.state.store(u64::from(number) << 32, Ordering::Release);
        self.claim_all(number, count, task);
        let mut idle = 0;
        while self.done.load(Ordering::Acquire) < parts {
            if self.lost.load(Ordering::Acquire) {
                // A part the helper claimed may be unwritten: every part again (each gives the
                // same bits whoever computes it).
                (0..parts).for_each(task);
                break;
            }
            wait(&mut idle);
        }
        let mut posted = self.posted.lock().unwrap_or_else(|e| e.into_inner());
        posted.task = None;
    }

    /// Claims parts of product `number` until none is left, running each.
    fn claim_all(&self, number: u32, count: u32, task: &(dyn Fn(usize) + Sync + '_)) {
        let mut state = self.state.load(Ordering::Acquire);
        while (state >> 32) as u32 == number && (state as u32) < count {
            match self.state.compare_exchange_weak(
                state,
                state + 1,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => {
                    task(state as u32 as usize);
                    self.done.fetch_add(1, Ordering::Release);
                    state = self.state.load(Ordering::Acquire);
                }
                Err(now) => state = now,
            }
        }
    }

    /// The helper's loop: takes parts of each product the owner posts until the pass is over.
    pub(super) fn help(&self) {
        let _lost = Lost(self);
        let mut seen = (self.state.load(Ordering::Acquire) >> 32) as u32;
        let mut idle = 0;
        while !self.over.load(Ordering::Acquire) {
            let number = (self.state.load(Ordering::Acquire) >> 32) as u32;
            if number == seen {
                wait(&mut idle);
                continue;
            }
            let (task, parts) = {
                let posted = self.posted.lock().unwrap_or_else(|e| e.into_inner());
                (
                    posted.task.filter(|_| posted.number == number),
                    posted.parts,
                )
            };
            if let (Some(task), Ok(count)) = (task, u32::try_from(parts)) {
                // SAFETY: `claim_all` calls the task only after claiming a part of product
                // `number`, and the owner stays in `run` (the task alive) until that part is
                // done (`Posted::task`).
                self.claim_all(number, count, unsafe { &*task });
            }
            seen = number;
            idle = 0;
        }
    }

    /// Tells the helper the pass is over (also when the owner unwinds: [`Over`]).
    pub(super) fn over(&self) -> Over<'_> {
        Over(self)
    }
}

/// Ends the helper's loop when dropped: at the end of the owner's pass or on its unwinding.
pub(super) struct Over<'a>(&'a Crew);

impl Drop for Over<'_> {
    fn drop(&mut self) {
        self.0.over.store(true, Ordering::Release);
    }
}

/// Marks the helper lost when it unwinds out of [`Crew::help`].
struct Lost<'a>(&'a Crew);

impl Drop for Lost<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.lost.store(true, Ordering::Release);
        }
    }
}

/// One round of waiting: spin at first, then yield the core.
fn wait(idle: &mut u32) {
    if *idle < SPINS {
        *idle += 1;
        std::hint::spin_loop();
    } else {
        std::thread::yield_now();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU32;

    #[test]
    fn every_part_of_every_product_runs_exactly_once_on_two_threads() {
        let crew = Crew::new();
        let counts: Vec<AtomicU32> = (0..97).map(|_| AtomicU32::new(0)).collect();
        std::thread::scope(|scope| {
            scope.spawn(|| crew.help());
            let _over = crew.over();
            for product in 0..200usize {
                crew.run(1 + product % counts.len(), &|i| {
                    counts[i].fetch_add(1, Ordering::Relaxed);
                });
            }
        });
        for (i, count) in counts.iter().enumerate() {
            let want = (0..200usize).filter(|p| i < 1 + p % 97).count() as u32;
            assert_eq!(count.load(Ordering::Relaxed), want, "part {i}");
        }
    }

    #[test]
    fn without_a_helper_the_owner_runs_every_part_itself() {
        let crew = Crew::new();
        let sum = AtomicUsize::new(0);
        crew.run(10, &|i| {
            sum.fetch_add(i, Ordering::Relaxed);
        });
        assert_eq!(sum.load(Ordering::Relaxed), 45);
    }

    #[test]
    fn a_helper_that_unwinds_in_a_part_leaves_the_owner_to_finish() {
        let crew = Crew::new();
        let runs: Vec<AtomicU32> = (0..64).map(|_| AtomicU32::new(0)).collect();
        let owner = std::thread::current().id();
        std::thread::scope(|scope| {
            let joined = scope.spawn(|| crew.help());
            let over = crew.over();
            crew.run(64, &|i| {
                runs[i].fetch_add(1, Ordering::Relaxed);
                // Slow parts, so that the helper takes some; it unwinds in the first it takes.
                std::thread::sleep(std::time::Duration::from_millis(1));
                if std::thread::current().id() != owner {
                    panic!("the helper unwinds");
                }
            });
            drop(over);
            assert!(joined.join().is_err());
        });
        assert!(runs.iter().all(|r| r.load(Ordering::Relaxed) >= 1));
    }
}

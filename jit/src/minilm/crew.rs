//! Two threads sharing one forward pass: the owner posts each product's independent parts
//! (weight panels), both claim them one at a time, and the owner never waits on a stalled helper.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Busy-wait rounds before the idle helper yields its core, staying runnable: a product's gap
/// on the owner is a few microseconds to a layer's attention. A helper that slept (parked)
/// instead woke late, often on the owner's core: on this 2-core VM the two-thread pass then
/// took longer than one thread's (12.9 against 11.8 ms), spinning 8.2 against 11.3 ms.
const SPINS: u32 = 2_000;

/// Products in a row the helper took no part of before it leaves the pass to the owner.
const GIVE_UP: u32 = 4;

/// A product whose parts either thread computes into its own scratch then writes.
pub(super) trait Job: Copy + Send {
    /// Computes `part` into `scratch`; gives up (false) as soon as `abandoned()` says the part
    /// was written by the other thread.
    fn compute(&self, part: usize, scratch: &mut Vec<f32>, abandoned: &dyn Fn() -> bool) -> bool;

    /// Writes a computed part to the product's output.
    ///
    /// # Safety
    /// At most once per part of a posted product, while the product's output lives.
    unsafe fn write(&self, part: usize, scratch: &[f32]);
}

/// The shared state of one forward pass on two threads.
pub(super) struct Crew<J> {
    /// The posted product's number (high 32 bits) and its next unclaimed part (low 32 bits):
    /// one compare-and-swap claims a part of exactly that product.
    state: AtomicU64,
    /// The posted product, by number, and its part count.
    posted: Mutex<(u32, Option<J>, usize)>,
    /// Per part, the number of the last product whose part is written: the thread that raises
    /// it writes the part, so each part is written once even when both computed it.
    written: Box<[AtomicU32]>,
    /// Parts of the posted product written.
    done: AtomicUsize,
    /// The forward pass is over (or its owner unwound): the helper returns.
    over: AtomicBool,
    /// Inputs of the pass's products, kept until the crew is dropped: a helper that was off its
    /// core may still read one after the owner has moved on (it then gives up at once).
    kept: Mutex<Vec<Vec<f32>>>,
}

impl<J: Job> Crew<J> {
    /// A crew for products of at most `most` parts.
    pub(super) fn new(most: usize) -> Crew<J> {
        Crew {
            state: AtomicU64::new(0),
            posted: Mutex::new((0, None, 0)),
            written: (0..most).map(|_| AtomicU32::new(0)).collect(),
            done: AtomicUsize::new(0),
            over: AtomicBool::new(false),
            kept: Mutex::new(Vec::new()),
        }
    }

    /// `values` kept alive until the crew is dropped; a pointer to them (stable: the buffer is
    /// never moved or changed again).
    pub(super) fn keep(&self, values: Vec<f32>) -> *const f32 {
        let at = values.as_ptr();
        self.kept
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(values);
        at
    }

    /// Runs every part of `job` (`parts` of them), sharing them with the helper when it is
    /// there; returns when all are written. Only the owner calls it; `job`'s inputs must live
    /// as long as the crew (see [`Self::keep`]).
    pub(super) fn run(&self, job: J, parts: usize, scratch: &mut Vec<f32>) {
        let number = ((self.state.load(Ordering::Relaxed) >> 32) as u32).wrapping_add(1);
        let (Ok(count), true, true) = (
            u32::try_from(parts),
            parts <= self.written.len(),
            number != 0,
        ) else {
            for part in 0..parts {
                job.compute(part, scratch, &|| false);
                // SAFETY: each part once, on this thread alone.
                unsafe { job.write(part, scratch) };
            }
            return;
        };
        self.done.store(0, Ordering::Relaxed);
        *self.posted.lock().unwrap_or_else(|e| e.into_inner()) = (number, Some(job), parts);
        self.state.store(u64::from(number) << 32, Ordering::Release);
        let mut slowest = Duration::ZERO;
        loop {
            let started = Instant::now();
            if !self.claim(job, number, count, scratch) {
                break;
            }
            slowest = slowest.max(started.elapsed());
        }
        // The helper's parts in flight: waited for as long as one part takes here, then
        // computed here too (the first to finish writes it; the other gives up).
        let waited = Instant::now();
        while self.done.load(Ordering::Acquire) < parts {
            if waited.elapsed() > slowest {
                for part in 0..parts {
                    self.finish(job, number, part, scratch);
                }
            }
            std::hint::spin_loop();
        }
    }

    /// Claims and computes one part of product `number`; false when none is left.
    fn claim(&self, job: J, number: u32, count: u32, scratch: &mut Vec<f32>) -> bool {
        let mut state = self.state.load(Ordering::Acquire);
        while (state >> 32) as u32 == number && (state as u32) < count {
            match self.state.compare_exchange_weak(
                state,
                state + 1,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => {
                    self.finish(job, number, state as u32 as usize, scratch);
                    return true;
                }
                Err(now) => state = now,
            }
        }
        false
    }

    /// Computes `part` of product `number` unless it is written, and writes it if no other
    /// thread did meanwhile.
    fn finish(&self, job: J, number: u32, part: usize, scratch: &mut Vec<f32>) {
        let Some(written) = self.written.get(part) else {
            return;
        };
        let abandoned = || written.load(Ordering::Acquire) >= number;
        if abandoned() || !job.compute(part, scratch, &abandoned) {
            return;
        }
        if written.fetch_max(number, Ordering::AcqRel) < number {
            // SAFETY: raising `written[part]` to `number` happens once per part of product
            // `number`, and the owner stays in `run` (the output alive) until it is counted.
            unsafe { job.write(part, scratch) };
            self.done.fetch_add(1, Ordering::Release);
        }
    }

    /// The helper's loop: takes parts of each product the owner posts until the pass is over.
    pub(super) fn help(&self) {
        let mut scratch = Vec::new();
        let mut seen = (self.state.load(Ordering::Acquire) >> 32) as u32;
        let (mut idle, mut missed) = (0, 0);
        while !self.over.load(Ordering::Acquire) {
            let number = (self.state.load(Ordering::Acquire) >> 32) as u32;
            if number == seen {
                if idle < SPINS {
                    idle += 1;
                    std::hint::spin_loop();
                } else {
                    std::thread::yield_now();
                }
                continue;
            }
            let (posted, job, parts) = *self.posted.lock().unwrap_or_else(|e| e.into_inner());
            let mut took = 0;
            if let (true, Some(job), Ok(count)) = (posted == number, job, u32::try_from(parts)) {
                while self.claim(job, number, count, &mut scratch) {
                    took += 1;
                }
            }
            // Products the owner finished alone (this thread was off its core or late): on a
            // loaded machine the scheduler shares the process's CPU among its threads, and a
            // helper that only waits takes it from the owner, so it leaves.
            missed = if took == 0 {
                missed + number.wrapping_sub(seen)
            } else {
                0
            };
            if missed >= GIVE_UP {
                return;
            }
            seen = number;
            idle = 0;
        }
    }

    /// Tells the helper the pass is over when dropped (also when the owner unwinds).
    pub(super) fn over(&self) -> Over<'_, J> {
        Over(self)
    }
}

/// Ends the helper's loop when dropped: at the end of the owner's pass or on its unwinding.
pub(super) struct Over<'a, J>(&'a Crew<J>);

impl<J> Drop for Over<'_, J> {
    fn drop(&mut self) {
        self.0.over.store(true, Ordering::Release);
    }
}

/// The CPU this thread runs on, where the system says.
pub(super) fn current_cpu() -> Option<usize> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: no arguments; -1 on failure.
        usize::try_from(unsafe { libc::sched_getcpu() }).ok()
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// Keeps this thread off `cpu` when it may run elsewhere too: a new thread starts on its
/// parent's CPU, and on a loaded machine the scheduler was slow to move the helper, which then
/// took a seventh of the parts instead of nearly half.
pub(super) fn avoid_cpu(cpu: Option<usize>) {
    #[cfg(target_os = "linux")]
    if let Some(cpu) = cpu.filter(|&cpu| cpu < libc::CPU_SETSIZE as usize) {
        let size = std::mem::size_of::<libc::cpu_set_t>();
        // SAFETY: `cpu_set_t` is a plain bit set (all zeros is empty); the calls read and write
        // `size` bytes of it, and `cpu` is below `CPU_SETSIZE`.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            if libc::sched_getaffinity(0, size, &mut set) == 0 && libc::CPU_ISSET(cpu, &set) {
                libc::CPU_CLR(cpu, &mut set);
                if libc::CPU_COUNT(&set) > 0 {
                    libc::sched_setaffinity(0, size, &set);
                }
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = cpu;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Part `i` of product `p` is `p * 1000 + i`, written to `out[i]`; counts computations.
    #[derive(Clone, Copy)]
    struct Fill {
        product: usize,
        out: *mut usize,
        computed: *const AtomicUsize,
        slow: bool,
        panic_on: Option<std::thread::ThreadId>,
    }

    // SAFETY: the pointers are to buffers the tests keep alive past the crew's threads.
    unsafe impl Send for Fill {}

    impl Job for Fill {
        fn compute(
            &self,
            part: usize,
            scratch: &mut Vec<f32>,
            abandoned: &dyn Fn() -> bool,
        ) -> bool {
            // SAFETY: the counter outlives the threads (see the tests).
            unsafe { &*self.computed }.fetch_add(1, Ordering::Relaxed);
            if self.panic_on == Some(std::thread::current().id()) {
                panic!("the helper unwinds");
            }
            for _ in 0..if self.slow { 20 } else { 1 } {
                if abandoned() {
                    return false;
                }
                if self.slow {
                    std::thread::sleep(Duration::from_micros(50));
                }
            }
            scratch.clear();
            scratch.push((self.product * 1000 + part) as f32);
            true
        }

        unsafe fn write(&self, part: usize, scratch: &[f32]) {
            // SAFETY: `out` has a place for every part (see the tests).
            unsafe { *self.out.add(part) = scratch[0] as usize };
        }
    }

    fn products(slow: bool, helper_panics: bool) -> usize {
        let crew = Crew::<Fill>::new(97);
        let mut out = vec![0usize; 97];
        let computed = AtomicUsize::new(0);
        let (out_at, computed_at) = (out.as_mut_ptr(), &computed as *const AtomicUsize);
        let helper = std::thread::scope(|scope| {
            let helper = scope.spawn(|| crew.help());
            let _over = crew.over();
            let mut scratch = Vec::new();
            for product in 1..=60usize {
                let parts = 1 + product * 7 % 97;
                let job = Fill {
                    product,
                    out: out_at,
                    computed: computed_at,
                    slow,
                    panic_on: helper_panics.then(|| helper.thread().id()),
                };
                crew.run(job, parts, &mut scratch);
                // SAFETY: the crew has returned: every part is written, none is being.
                let written = unsafe { std::slice::from_raw_parts(out_at, parts) };
                for (i, v) in written.iter().enumerate() {
                    assert_eq!(*v, product * 1000 + i, "product {product} part {i}");
                }
            }
            drop(_over);
            helper.join()
        });
        assert_eq!(helper.is_err(), helper_panics);
        computed.load(Ordering::Relaxed)
    }

    #[test]
    fn every_part_of_every_product_is_written_once_with_its_value() {
        let computed = products(false, false);
        let parts: usize = (1..=60usize).map(|p| 1 + p * 7 % 97).sum();
        assert!(computed >= parts, "{computed} of {parts}");
        // Slow parts: the owner also computes the helper's late ones, the values stay right.
        products(true, false);
    }

    #[test]
    fn a_helper_that_unwinds_in_a_part_leaves_the_owner_to_finish() {
        products(true, true);
    }

    #[test]
    fn without_a_helper_the_owner_computes_every_part_itself() {
        let crew = Crew::<Fill>::new(4);
        let mut out = vec![0usize; 10];
        let computed = AtomicUsize::new(0);
        let job = Fill {
            product: 3,
            out: out.as_mut_ptr(),
            computed: &computed,
            slow: false,
            panic_on: None,
        };
        // More parts than the crew has places for: computed here, in order.
        crew.run(job, 10, &mut Vec::new());
        crew.run(Fill { product: 4, ..job }, 4, &mut Vec::new());
        assert_eq!(out[..4], [4000, 4001, 4002, 4003]);
        assert_eq!(out[4..], [3004, 3005, 3006, 3007, 3008, 3009]);
        assert_eq!(computed.load(Ordering::Relaxed), 14);
    }
}

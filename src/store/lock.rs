//! Advisory locks (`flock` on Linux, through [`File::try_lock`]) between the writers of one directory or file, in this process
//! or another: the lock belongs to an open file description, so each writer opens its own.

use std::fs::{File, TryLockError};
use std::io;
use std::time::{Duration, Instant};

/// How often a waiting writer tries the lock again.
const RETRY: Duration = Duration::from_millis(20);

/// Takes the exclusive advisory lock of `file` (a file or a directory opened to read),
/// waiting up to `wait` for another holder to let go, and calls `waiting` once if it has
/// to wait. `Ok(false)` where another still holds it after `wait`. The lock is released
/// when `file` is closed.
pub fn lock_exclusive(file: &File, wait: Duration, waiting: impl FnOnce()) -> io::Result<bool> {
    let started = Instant::now();
    let mut waiting = Some(waiting);
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(true),
            Err(TryLockError::WouldBlock) => {}
            Err(TryLockError::Error(error)) => return Err(error),
        }
        if started.elapsed() >= wait {
            return Ok(false);
        }
        if let Some(announce) = waiting.take() {
            announce();
        }
        std::thread::sleep(RETRY.min(wait));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two open file descriptions of one file exclude each other, in one process too; the
    /// lock goes with the file's closing.
    #[test]
    fn a_held_lock_makes_others_wait_until_it_is_closed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lock");
        let open = || File::options().create(true).truncate(false).write(true).open(&path).unwrap();
        let held = open();
        assert!(lock_exclusive(&held, Duration::ZERO, || {}).unwrap());
        let mut announced = 0;
        assert!(!lock_exclusive(&open(), Duration::from_millis(100), || announced += 1).unwrap());
        assert_eq!(announced, 1);
        drop(held);
        assert!(lock_exclusive(&open(), Duration::ZERO, || {}).unwrap());
    }
}

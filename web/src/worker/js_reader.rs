//! Reading a JS `ArrayBuffer` through `Read + Seek`, a slice at a time, so a large archive is
//! unpacked without first copying all of it into wasm memory (which never shrinks).

use std::io::{Error, ErrorKind, Read, Seek, SeekFrom};

use js_sys::{ArrayBuffer, Uint8Array};

pub struct JsBufferReader {
    bytes: Uint8Array,
    position: u64,
}

impl JsBufferReader {
    pub fn new(buffer: &ArrayBuffer) -> JsBufferReader {
        JsBufferReader {
            bytes: Uint8Array::new(buffer),
            position: 0,
        }
    }

    fn len(&self) -> u64 {
        u64::from(self.bytes.length())
    }
}

impl Read for JsBufferReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let start = self.position.min(self.len());
        let end = (start + buf.len() as u64).min(self.len());
        let n = (end - start) as usize;
        if n > 0 {
            self.bytes
                .subarray(start as u32, end as u32)
                .copy_to(&mut buf[..n]);
        }
        self.position = end;
        Ok(n)
    }
}

impl Seek for JsBufferReader {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        let target = match to {
            SeekFrom::Start(at) => Some(at),
            SeekFrom::End(delta) => self.len().checked_add_signed(delta),
            SeekFrom::Current(delta) => self.position.checked_add_signed(delta),
        };
        let target =
            target.ok_or_else(|| Error::new(ErrorKind::InvalidInput, "seek before the start"))?;
        self.position = target;
        Ok(target)
    }
}

#[cfg(all(test, target_arch = "wasm32"))]
mod wasm_tests;

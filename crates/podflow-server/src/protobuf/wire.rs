//! The protobuf wire format, read one field at a time: a key (field number
//! and wire type) then a varint, a fixed 64- or 32-bit word, or a
//! length-delimited run of bytes. Groups (wire types 3 and 4), which no
//! Kubernetes message uses, are refused.

/// One field's value as the wire carries it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Wire<'a> {
    Varint(u64),
    Fixed64(u64),
    Bytes(&'a [u8]),
    Fixed32(u32),
}

impl Wire<'_> {
    /// How an error message names this wire type.
    pub(super) fn describe(self) -> &'static str {
        match self {
            Wire::Varint(_) => "a varint",
            Wire::Fixed64(_) => "a 64-bit word",
            Wire::Bytes(_) => "length-delimited bytes",
            Wire::Fixed32(_) => "a 32-bit word",
        }
    }
}

/// Reads the fields of one message.
pub(super) struct Reader<'a> {
    rest: &'a [u8],
}

impl<'a> Reader<'a> {
    pub(super) fn new(bytes: &'a [u8]) -> Self {
        Reader { rest: bytes }
    }

    /// Whether every byte has been read.
    pub(super) fn is_empty(&self) -> bool {
        self.rest.is_empty()
    }

    /// The next field, or `None` at the end of the message.
    pub(super) fn field(&mut self) -> Result<Option<(u32, Wire<'a>)>, String> {
        if self.rest.is_empty() {
            return Ok(None);
        }
        let key = self.varint()?;
        let number = u32::try_from(key >> 3)
            .ok()
            .filter(|n| (1..=0x1FFF_FFFF).contains(n))
            .ok_or_else(|| format!("invalid field number {}", key >> 3))?;
        let value = match key & 7 {
            0 => Wire::Varint(self.varint()?),
            1 => Wire::Fixed64(u64::from_le_bytes(self.take_array()?)),
            2 => {
                let len = usize::try_from(self.varint()?)
                    .map_err(|_| "a length does not fit in memory".to_string())?;
                Wire::Bytes(self.take(len)?)
            }
            5 => Wire::Fixed32(u32::from_le_bytes(self.take_array()?)),
            3 | 4 => return Err(format!("field {number} is a group, which is not supported")),
            other => return Err(format!("field {number} has the unknown wire type {other}")),
        };
        Ok(Some((number, value)))
    }

    /// A base-128 varint of at most ten bytes.
    pub(super) fn varint(&mut self) -> Result<u64, String> {
        let mut value = 0u64;
        for (index, byte) in self.rest.iter().enumerate().take(10) {
            let bits = u64::from(byte & 0x7F);
            if index == 9 && bits > 1 {
                return Err("a varint overflows 64 bits".to_string());
            }
            value |= bits << (7 * index);
            if byte & 0x80 == 0 {
                self.rest = &self.rest[index + 1..];
                return Ok(value);
            }
        }
        Err(if self.rest.len() < 10 {
            "the message ends inside a varint".to_string()
        } else {
            "a varint is longer than ten bytes".to_string()
        })
    }

    /// A fixed-width word, as its little-endian bytes.
    pub(super) fn take_array<const N: usize>(&mut self) -> Result<[u8; N], String> {
        let bytes = self.take(N)?;
        let mut array = [0u8; N];
        array.copy_from_slice(bytes);
        Ok(array)
    }

    fn take(&mut self, len: usize) -> Result<&'a [u8], String> {
        if len > self.rest.len() {
            return Err(format!(
                "the message ends {} bytes short of a {len}-byte value",
                len - self.rest.len()
            ));
        }
        let (taken, rest) = self.rest.split_at(len);
        self.rest = rest;
        Ok(taken)
    }
}

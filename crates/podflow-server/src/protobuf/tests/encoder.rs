//! A test-only protobuf writer: enough of the wire format to hand-encode
//! the messages a client would send.

/// A message being written.
#[derive(Default, Clone)]
pub(super) struct Msg(Vec<u8>);

impl Msg {
    pub(super) fn new() -> Self {
        Msg::default()
    }

    fn key(&mut self, tag: u32, wire_type: u8) {
        push_varint(&mut self.0, (u64::from(tag) << 3) | u64::from(wire_type));
    }

    /// A varint field (`bool`, `int32`, `int64`), negative values sign-extended.
    pub(super) fn int(mut self, tag: u32, value: i64) -> Self {
        self.key(tag, 0);
        push_varint(&mut self.0, value.cast_unsigned());
        self
    }

    pub(super) fn bool(self, tag: u32, value: bool) -> Self {
        self.int(tag, i64::from(value))
    }

    pub(super) fn bytes(mut self, tag: u32, value: &[u8]) -> Self {
        self.key(tag, 2);
        push_varint(&mut self.0, u64::try_from(value.len()).unwrap());
        self.0.extend_from_slice(value);
        self
    }

    pub(super) fn string(self, tag: u32, value: &str) -> Self {
        self.bytes(tag, value.as_bytes())
    }

    pub(super) fn message(self, tag: u32, value: &Msg) -> Self {
        self.bytes(tag, &value.0)
    }

    pub(super) fn double(mut self, tag: u32, value: f64) -> Self {
        self.key(tag, 1);
        self.0.extend_from_slice(&value.to_bits().to_le_bytes());
        self
    }

    /// A packed repeated varint field.
    pub(super) fn packed(self, tag: u32, values: &[i64]) -> Self {
        let mut run = Vec::new();
        for value in values {
            push_varint(&mut run, value.cast_unsigned());
        }
        self.bytes(tag, &run)
    }

    /// One entry of a `map<string, string>` (or of `bytes`).
    pub(super) fn entry(self, tag: u32, key: &str, value: &[u8]) -> Self {
        self.message(tag, &Msg::new().string(1, key).bytes(2, value))
    }

    /// One entry of a map whose values are messages.
    pub(super) fn entry_message(self, tag: u32, key: &str, value: &Msg) -> Self {
        self.message(tag, &Msg::new().string(1, key).message(2, value))
    }

    /// Raw bytes, written as they are.
    pub(super) fn raw(mut self, bytes: &[u8]) -> Self {
        self.0.extend_from_slice(bytes);
        self
    }

    pub(super) fn into_bytes(self) -> Vec<u8> {
        self.0
    }
}

fn push_varint(out: &mut Vec<u8>, mut value: u64) {
    loop {
        let low = u8::try_from(value & 0x7F).unwrap();
        value >>= 7;
        if value == 0 {
            out.push(low);
            return;
        }
        out.push(low | 0x80);
    }
}

/// A body as a client sends it: `k8s\0`, then the `runtime.Unknown`.
pub(super) fn envelope(api_version: &str, kind: &str, object: &Msg) -> Vec<u8> {
    let type_meta = Msg::new().string(1, api_version).string(2, kind);
    let unknown = Msg::new()
        .message(1, &type_meta)
        .message(2, object)
        .string(3, "")
        .string(4, "");
    let mut body = b"k8s\0".to_vec();
    body.extend(unknown.into_bytes());
    body
}

/// A `resource.Quantity`.
pub(super) fn quantity(text: &str) -> Msg {
    Msg::new().string(1, text)
}

/// An `ObjectMeta` as Go writes it: every non-pointer field, even when empty.
pub(super) fn object_meta(name: &str, namespace: &str) -> Msg {
    Msg::new()
        .string(1, name)
        .string(2, "")
        .string(3, namespace)
        .string(4, "")
        .string(5, "")
        .string(6, "")
        .int(7, 0)
        .bytes(8, &[])
}

/// A Pod with this spec and the status Go always writes (its metadata, when
/// wanted, is added after).
pub(super) fn pod(spec: &Msg) -> Msg {
    Msg::new().message(2, spec).message(3, &Msg::new())
}

/// `metadata.labels: {app: web}` (field 11 of `ObjectMeta`).
pub(super) fn app_web(meta: Msg) -> Msg {
    meta.entry(11, "app", b"web")
}

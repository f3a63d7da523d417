//! The engine's one source of randomness: a seeded xoshiro256** generator,
//! so the same seed gives the same UIDs, IPs, names and jitter.

/// A small, fast, seedable generator (xoshiro256**, seeded through `SplitMix64`).
#[derive(Debug, Clone)]
pub struct Rng {
    s: [u64; 4],
}

/// The alphabet of `k8s.io/apimachinery/pkg/util/rand.String`: no vowels, no
/// look-alikes (`0`, `1`, `3`), so generated names spell no words.
const NAME_ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

/// Appends `bytes` as lower-case hex digits, two a byte.
fn push_hex(out: &mut String, bytes: &[u8]) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for byte in bytes {
        out.push(char::from(DIGITS[usize::from(byte >> 4)]));
        out.push(char::from(DIGITS[usize::from(byte & 0x0f)]));
    }
}

impl Rng {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Rng {
        let mut x = seed;
        let mut next = || {
            x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        Rng {
            s: [next(), next(), next(), next()],
        }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// A number in `0..n` (`n > 0`), without modulo bias worth noticing at these sizes.
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0, "Rng::below(0)");
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// A number in `lo..=hi`.
    pub fn between(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }

    /// `n` characters as `utilrand.String(n)` makes them (generateName suffixes,
    /// `kube-api-access-xxxxx`).
    pub fn name_suffix(&mut self, n: usize) -> String {
        (0..n)
            .map(|_| {
                let i = self.below(NAME_ALPHABET.len() as u64);
                char::from(NAME_ALPHABET[usize::try_from(i).unwrap_or(0)])
            })
            .collect()
    }

    /// A random (version 4) UUID, as object UIDs are: 16 random bytes, the
    /// version nibble 4 and the RFC 4122 variant bits, in 8-4-4-4-12 groups.
    pub fn uuid(&mut self) -> String {
        let mut bytes = [0u8; 16];
        bytes[..8].copy_from_slice(&self.next_u64().to_be_bytes());
        bytes[8..].copy_from_slice(&self.next_u64().to_be_bytes());
        bytes[6] = 0x40 | (bytes[6] & 0x0f);
        bytes[8] = 0x80 | (bytes[8] & 0x3f);
        let mut out = String::with_capacity(36);
        for (i, group) in [0..4, 4..6, 6..8, 8..10, 10..16].into_iter().enumerate() {
            if i > 0 {
                out.push('-');
            }
            push_hex(&mut out, &bytes[group]);
        }
        out
    }

    /// `n` random lower-case hex digits (container and sandbox IDs are 64 of them).
    pub fn hex(&mut self, n: usize) -> String {
        let mut out = String::with_capacity(n + 16);
        while out.len() < n {
            push_hex(&mut out, &self.next_u64().to_be_bytes());
        }
        out.truncate(n);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_sequence() {
        let mut a = Rng::new(7);
        let mut b = Rng::new(7);
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
        assert_ne!(Rng::new(1).next_u64(), Rng::new(2).next_u64());
    }

    /// Known answers from the algorithms' reference implementations (Vigna's
    /// `splitmix64.c` and `xoshiro256starstar.c`, as the `rand_xoshiro` crate's
    /// `reference` test quotes them): a change to either breaks every trace.
    #[test]
    fn known_answers_of_the_reference_implementations() {
        // SplitMix64 from state 0 gives the generator's four words of seed 0.
        assert_eq!(
            Rng::new(0).s,
            [
                0xe220_a839_7b1d_cdaf,
                0x6e78_9e6a_a1b9_65f4,
                0x06c4_5d18_8009_454f,
                0xf88b_b8a8_724c_81ec
            ]
        );
        // xoshiro256** from the state [1, 2, 3, 4].
        let mut rng = Rng { s: [1, 2, 3, 4] };
        let first: Vec<u64> = (0..10).map(|_| rng.next_u64()).collect();
        assert_eq!(
            first,
            [
                11_520,
                0,
                1_509_978_240,
                1_215_971_899_390_074_240,
                1_216_172_134_540_287_360,
                607_988_272_756_665_600,
                16_172_922_978_634_559_625,
                8_476_171_486_693_032_832,
                10_595_114_339_597_558_777,
                2_904_607_092_377_533_576,
            ]
        );
        // And so the stream every default run (`--seed 1`) draws from.
        let mut rng = Rng::new(1);
        let first: Vec<u64> = (0..4).map(|_| rng.next_u64()).collect();
        assert_eq!(
            first,
            [
                12_966_619_160_104_079_557,
                9_600_361_134_598_540_522,
                10_590_380_919_521_690_900,
                7_218_738_570_589_545_383,
            ]
        );
    }

    #[test]
    fn names_and_uids_have_kubernetes_shapes() {
        let mut rng = Rng::new(1);
        let suffix = rng.name_suffix(5);
        assert_eq!(suffix.len(), 5);
        assert!(suffix.bytes().all(|c| NAME_ALPHABET.contains(&c)));
        let uid = rng.uuid();
        assert_eq!(uid.len(), 36);
        assert_eq!(&uid[14..15], "4");
        assert!(matches!(&uid[19..20], "8" | "9" | "a" | "b"));
        assert_eq!(rng.hex(64).len(), 64);
        for _ in 0..1000 {
            assert!(rng.between(3, 5) >= 3 && rng.between(3, 5) <= 5);
        }
    }
}

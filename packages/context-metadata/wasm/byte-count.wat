;; Byte counters for analyzeFile, 16 bytes per step with WebAssembly SIMD.
;; Compiled by scripts/build-wasm.mjs into src/byte-count-wasm.ts (base64); a test checks that
;; the committed bytes are this file's compilation. Splatted constants live in locals set before
;; the loops: the engine does not hoist a splat out of a loop.
(module
  (import "env" "memory" (memory 1))

  ;; UTF-16 length of the valid UTF-8 in [p, p + n): one unit per byte that does not continue
  ;; a sequence (not 10xxxxxx), one more per four-byte lead (>= 0xF0: a surrogate pair).
  ;; 64 bytes per step; each i8 lane of $acc moves by at most 1 per vector (-1 continuation,
  ;; +1 four-byte lead), so it is widened into $sum every 31 steps (124 vectors), before it
  ;; can overflow.
  (func (export "utf16") (param $p i32) (param $n i32) (result i32)
    (local $end i32) (local $c i32) (local $b i32) (local $j i32)
    (local $acc v128) (local $sum v128) (local $c0 v128) (local $c8 v128) (local $f0 v128)
    (local.set $end (i32.add (local.get $p) (local.get $n)))
    (local.set $c (local.get $n))
    (local.set $c0 (i8x16.splat (i32.const 0xc0)))
    (local.set $c8 (i8x16.splat (i32.const 0x80)))
    (local.set $f0 (i8x16.splat (i32.const 0xf0)))
    (block $done
      (loop $round
        (br_if $done (i32.gt_u (i32.add (local.get $p) (i32.const 64)) (local.get $end)))
        (local.set $acc (v128.const i64x2 0 0))
        (local.set $j (i32.const 31))
        (block $full
          (loop $step
            (br_if $full (i32.eqz (local.get $j)))
            (br_if $full (i32.gt_u (i32.add (local.get $p) (i32.const 64)) (local.get $end)))
            (local.set $acc
              (i8x16.add (local.get $acc)
                (i8x16.sub
                  (i8x16.eq (v128.and (v128.load offset=0 (local.get $p)) (local.get $c0)) (local.get $c8))
                  (i8x16.ge_u (v128.load offset=0 (local.get $p)) (local.get $f0)))))
            (local.set $acc
              (i8x16.add (local.get $acc)
                (i8x16.sub
                  (i8x16.eq (v128.and (v128.load offset=16 (local.get $p)) (local.get $c0)) (local.get $c8))
                  (i8x16.ge_u (v128.load offset=16 (local.get $p)) (local.get $f0)))))
            (local.set $acc
              (i8x16.add (local.get $acc)
                (i8x16.sub
                  (i8x16.eq (v128.and (v128.load offset=32 (local.get $p)) (local.get $c0)) (local.get $c8))
                  (i8x16.ge_u (v128.load offset=32 (local.get $p)) (local.get $f0)))))
            (local.set $acc
              (i8x16.add (local.get $acc)
                (i8x16.sub
                  (i8x16.eq (v128.and (v128.load offset=48 (local.get $p)) (local.get $c0)) (local.get $c8))
                  (i8x16.ge_u (v128.load offset=48 (local.get $p)) (local.get $f0)))))
            (local.set $p (i32.add (local.get $p) (i32.const 64)))
            (local.set $j (i32.sub (local.get $j) (i32.const 1)))
            (br $step)))
        (local.set $sum
          (i32x4.add (local.get $sum)
            (i32x4.extadd_pairwise_i16x8_s (i16x8.extadd_pairwise_i8x16_s (local.get $acc)))))
        (br $round)))
    (local.set $c
      (i32.add (local.get $c)
        (i32.add
          (i32.add (i32x4.extract_lane 0 (local.get $sum)) (i32x4.extract_lane 1 (local.get $sum)))
          (i32.add (i32x4.extract_lane 2 (local.get $sum)) (i32x4.extract_lane 3 (local.get $sum))))))
    (block $tdone
      (loop $tail
        (br_if $tdone (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $b (i32.load8_u (local.get $p)))
        (if (i32.eq (i32.and (local.get $b) (i32.const 0xc0)) (i32.const 0x80))
          (then (local.set $c (i32.sub (local.get $c) (i32.const 1)))))
        (if (i32.ge_u (local.get $b) (i32.const 0xf0))
          (then (local.set $c (i32.add (local.get $c) (i32.const 1)))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $tail)))
    (local.get $c))

  ;; Writes the index of every \n and \r in [p, p + n), in order, as i32s from `out`; returns
  ;; how many. 32 bytes per step.
  (func (export "breaks") (param $p i32) (param $n i32) (param $out i32) (result i32)
    (local $end i32) (local $k i32) (local $m i32) (local $x i32)
    (local $lf v128) (local $cr v128) (local $va v128) (local $vb v128)
    (local.set $end (i32.add (local.get $p) (local.get $n)))
    (local.set $lf (i8x16.splat (i32.const 10)))
    (local.set $cr (i8x16.splat (i32.const 13)))
    (block $done
      (loop $vec
        (br_if $done (i32.gt_u (i32.add (local.get $p) (i32.const 32)) (local.get $end)))
        (local.set $m
          (i32.or (i8x16.bitmask (v128.or (i8x16.eq (v128.load offset=0 (local.get $p)) (local.get $lf)) (i8x16.eq (v128.load offset=0 (local.get $p)) (local.get $cr))))
            (i32.shl (i8x16.bitmask (v128.or (i8x16.eq (v128.load offset=16 (local.get $p)) (local.get $lf)) (i8x16.eq (v128.load offset=16 (local.get $p)) (local.get $cr)))) (i32.const 16))))
        (block $bits
          (loop $bit
            (br_if $bits (i32.eqz (local.get $m)))
            (i32.store
              (i32.add (local.get $out) (i32.shl (local.get $k) (i32.const 2)))
              (i32.add (local.get $p) (i32.ctz (local.get $m))))
            (local.set $k (i32.add (local.get $k) (i32.const 1)))
            (local.set $m (i32.and (local.get $m) (i32.sub (local.get $m) (i32.const 1))))
            (br $bit)))
        (local.set $p (i32.add (local.get $p) (i32.const 32)))
        (br $vec)))
    (block $tdone
      (loop $tail
        (br_if $tdone (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $x (i32.load8_u (local.get $p)))
        (if (i32.or (i32.eq (local.get $x) (i32.const 10)) (i32.eq (local.get $x) (i32.const 13)))
          (then
            (i32.store
              (i32.add (local.get $out) (i32.shl (local.get $k) (i32.const 2)))
              (local.get $p))
            (local.set $k (i32.add (local.get $k) (i32.const 1)))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $tail)))
    (local.get $k))

  ;; `breaks` that also lists the bytes equal to `a` or `b` (a CSV's quote and delimiter).
  (func (export "events") (param $p i32) (param $n i32) (param $out i32) (param $a i32) (param $b i32) (result i32)
    (local $end i32) (local $k i32) (local $m i32) (local $x i32)
    (local $lf v128) (local $cr v128) (local $va v128) (local $vb v128)
    (local.set $end (i32.add (local.get $p) (local.get $n)))
    (local.set $lf (i8x16.splat (i32.const 10)))
    (local.set $cr (i8x16.splat (i32.const 13)))
    (local.set $va (i8x16.splat (local.get $a)))
    (local.set $vb (i8x16.splat (local.get $b)))
    (block $done
      (loop $vec
        (br_if $done (i32.gt_u (i32.add (local.get $p) (i32.const 32)) (local.get $end)))
        (local.set $m
          (i32.or (i8x16.bitmask (v128.or (v128.or (v128.or (i8x16.eq (v128.load offset=0 (local.get $p)) (local.get $lf)) (i8x16.eq (v128.load offset=0 (local.get $p)) (local.get $cr))) (i8x16.eq (v128.load offset=0 (local.get $p)) (local.get $va))) (i8x16.eq (v128.load offset=0 (local.get $p)) (local.get $vb))))
            (i32.shl (i8x16.bitmask (v128.or (v128.or (v128.or (i8x16.eq (v128.load offset=16 (local.get $p)) (local.get $lf)) (i8x16.eq (v128.load offset=16 (local.get $p)) (local.get $cr))) (i8x16.eq (v128.load offset=16 (local.get $p)) (local.get $va))) (i8x16.eq (v128.load offset=16 (local.get $p)) (local.get $vb)))) (i32.const 16))))
        (block $bits
          (loop $bit
            (br_if $bits (i32.eqz (local.get $m)))
            (i32.store
              (i32.add (local.get $out) (i32.shl (local.get $k) (i32.const 2)))
              (i32.add (local.get $p) (i32.ctz (local.get $m))))
            (local.set $k (i32.add (local.get $k) (i32.const 1)))
            (local.set $m (i32.and (local.get $m) (i32.sub (local.get $m) (i32.const 1))))
            (br $bit)))
        (local.set $p (i32.add (local.get $p) (i32.const 32)))
        (br $vec)))
    (block $tdone
      (loop $tail
        (br_if $tdone (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $x (i32.load8_u (local.get $p)))
        (if (i32.or (i32.or (i32.eq (local.get $x) (i32.const 10)) (i32.eq (local.get $x) (i32.const 13))) (i32.or (i32.eq (local.get $x) (local.get $a)) (i32.eq (local.get $x) (local.get $b))))
          (then
            (i32.store
              (i32.add (local.get $out) (i32.shl (local.get $k) (i32.const 2)))
              (local.get $p))
            (local.set $k (i32.add (local.get $k) (i32.const 1)))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $tail)))
    (local.get $k))
)

;; Byte counters for analyzeFile, 16 bytes per step with WebAssembly SIMD.
;; Compiled by scripts/build-wasm.mjs into src/byte-count-wasm.ts (base64); a test checks that
;; the committed bytes are this file's compilation.
(module
  (import "env" "memory" (memory 1))

  ;; UTF-16 length of the valid UTF-8 in [p, p + n): one unit per byte that does not continue
  ;; a sequence (not 10xxxxxx), one more per four-byte lead (>= 0xF0: a surrogate pair).
  (func (export "utf16") (param $p i32) (param $n i32) (result i32)
    (local $end i32) (local $c i32) (local $v v128) (local $b i32)
    (local.set $end (i32.add (local.get $p) (local.get $n)))
    (local.set $c (local.get $n))
    (block $done
      (loop $vec
        (br_if $done (i32.gt_u (i32.add (local.get $p) (i32.const 16)) (local.get $end)))
        (local.set $v (v128.load (local.get $p)))
        (local.set $c
          (i32.sub (local.get $c)
            (i32.popcnt (i8x16.bitmask
              (i8x16.eq
                (v128.and (local.get $v) (i8x16.splat (i32.const 0xc0)))
                (i8x16.splat (i32.const 0x80)))))))
        (local.set $c
          (i32.add (local.get $c)
            (i32.popcnt (i8x16.bitmask
              (i8x16.ge_u (local.get $v) (i8x16.splat (i32.const 0xf0)))))))
        (local.set $p (i32.add (local.get $p) (i32.const 16)))
        (br $vec)))
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
  ;; how many.
  (func (export "breaks") (param $p i32) (param $n i32) (param $out i32) (result i32)
    (local $end i32) (local $k i32) (local $v v128) (local $m i32) (local $b i32)
    (local.set $end (i32.add (local.get $p) (local.get $n)))
    (block $done
      (loop $vec
        (br_if $done (i32.gt_u (i32.add (local.get $p) (i32.const 16)) (local.get $end)))
        (local.set $v (v128.load (local.get $p)))
        (local.set $m
          (i8x16.bitmask
            (v128.or
              (i8x16.eq (local.get $v) (i8x16.splat (i32.const 10)))
              (i8x16.eq (local.get $v) (i8x16.splat (i32.const 13))))))
        (block $bits
          (loop $bit
            (br_if $bits (i32.eqz (local.get $m)))
            (i32.store
              (i32.add (local.get $out) (i32.shl (local.get $k) (i32.const 2)))
              (i32.add (local.get $p) (i32.ctz (local.get $m))))
            (local.set $k (i32.add (local.get $k) (i32.const 1)))
            (local.set $m (i32.and (local.get $m) (i32.sub (local.get $m) (i32.const 1))))
            (br $bit)))
        (local.set $p (i32.add (local.get $p) (i32.const 16)))
        (br $vec)))
    (block $tdone
      (loop $tail
        (br_if $tdone (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $b (i32.load8_u (local.get $p)))
        (if (i32.or (i32.eq (local.get $b) (i32.const 10)) (i32.eq (local.get $b) (i32.const 13)))
          (then
            (i32.store
              (i32.add (local.get $out) (i32.shl (local.get $k) (i32.const 2)))
              (local.get $p))
            (local.set $k (i32.add (local.get $k) (i32.const 1)))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $tail)))
    (local.get $k))
)

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

  ;; How many bytes in [p, p + n) equal `byte`.
  (func (export "count") (param $p i32) (param $n i32) (param $byte i32) (result i32)
    (local $end i32) (local $c i32) (local $s v128)
    (local.set $end (i32.add (local.get $p) (local.get $n)))
    (local.set $s (i8x16.splat (local.get $byte)))
    (block $done
      (loop $vec
        (br_if $done (i32.gt_u (i32.add (local.get $p) (i32.const 16)) (local.get $end)))
        (local.set $c
          (i32.add (local.get $c)
            (i32.popcnt (i8x16.bitmask (i8x16.eq (v128.load (local.get $p)) (local.get $s))))))
        (local.set $p (i32.add (local.get $p) (i32.const 16)))
        (br $vec)))
    (block $tdone
      (loop $tail
        (br_if $tdone (i32.ge_u (local.get $p) (local.get $end)))
        (if (i32.eq (i32.load8_u (local.get $p)) (i32.and (local.get $byte) (i32.const 0xff)))
          (then (local.set $c (i32.add (local.get $c) (i32.const 1)))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $tail)))
    (local.get $c))
)

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

  ;; 1 when [i, to) decodes to a character above U+0020 that is not a BOM: a byte above 0x20
  ;; other than a whole EF BB BF (see hasContentBytes in src/byte-csv-counter.ts).
  (func $visible (param $i i32) (param $to i32) (result i32)
    (local $c i32)
    (block $none
      (loop $byte
        (br_if $none (i32.ge_u (local.get $i) (local.get $to)))
        (local.set $c (i32.load8_u (local.get $i)))
        (if (i32.le_u (local.get $c) (i32.const 32))
          (then
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $byte)))
        (if (i32.and
              (i32.and (i32.eq (local.get $c) (i32.const 0xef))
                (i32.lt_u (i32.add (local.get $i) (i32.const 2)) (local.get $to)))
              (i32.and (i32.eq (i32.load8_u offset=1 (local.get $i)) (i32.const 0xbb))
                (i32.eq (i32.load8_u offset=2 (local.get $i)) (i32.const 0xbf))))
          (then
            (local.set $i (i32.add (local.get $i) (i32.const 3)))
            (br $byte)))
        (return (i32.const 1))))
    (i32.const 0))

  ;; The CSV record counter of src/byte-csv-counter.ts (ByteCsvCounter) over [p, p + n), its
  ;; state in i32 slots from `st`: 0 records, 1 ragged, 2 fields, 3 content, 4 in quotes,
  ;; 5 quote pending, 6 previous byte, 7 delimiter, 8 expected fields, 9 skipped records.
  ;; Finds quotes, delimiters and line breaks 32 bytes per step (the last step's mask is built
  ;; byte by byte), then follows the quote state from one to the next.
  (func (export "csv") (param $p i32) (param $n i32) (param $st i32)
    (local $end i32) (local $from i32) (local $m i32) (local $q i32) (local $c i32) (local $i i32)
    (local $count i32) (local $ragged i32) (local $fields i32) (local $content i32)
    (local $inq i32) (local $qp i32) (local $prev i32) (local $delim i32) (local $expected i32)
    (local $skip i32) (local $start i32) (local $skipTo i32) (local $before i32)
    (local $lf v128) (local $cr v128) (local $vq v128) (local $vd v128)
    (local.set $count (i32.load offset=0 (local.get $st)))
    (local.set $ragged (i32.load offset=4 (local.get $st)))
    (local.set $fields (i32.load offset=8 (local.get $st)))
    (local.set $content (i32.load offset=12 (local.get $st)))
    (local.set $inq (i32.load offset=16 (local.get $st)))
    (local.set $qp (i32.load offset=20 (local.get $st)))
    (local.set $prev (i32.load offset=24 (local.get $st)))
    (local.set $delim (i32.load offset=28 (local.get $st)))
    (local.set $expected (i32.load offset=32 (local.get $st)))
    (local.set $skip (i32.load offset=36 (local.get $st)))
    (local.set $from (local.get $p))
    (local.set $end (i32.add (local.get $p) (local.get $n)))
    (local.set $start (local.get $p))
    (local.set $skipTo (local.get $p))
    ;; a quote ended the last run inside a quoted field: `""` when this run starts with a quote
    (if (local.get $qp)
      (then
        (local.set $qp (i32.const 0))
        (if (i32.eq (i32.load8_u (local.get $p)) (i32.const 34))
          (then (local.set $skipTo (i32.add (local.get $p) (i32.const 1))))
          (else (local.set $inq (i32.const 0))))))
    (local.set $lf (i8x16.splat (i32.const 10)))
    (local.set $cr (i8x16.splat (i32.const 13)))
    (local.set $vq (i8x16.splat (i32.const 34)))
    (local.set $vd (i8x16.splat (local.get $delim)))
    (block $done
      (loop $vec
        (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
        (if (i32.le_u (i32.add (local.get $p) (i32.const 32)) (local.get $end))
          (then
            (local.set $m
              (i32.or
                (i8x16.bitmask
              (v128.or
                (v128.or (i8x16.eq (v128.load offset=0 (local.get $p)) (local.get $lf)) (i8x16.eq (v128.load offset=0 (local.get $p)) (local.get $cr)))
                (v128.or (i8x16.eq (v128.load offset=0 (local.get $p)) (local.get $vq)) (i8x16.eq (v128.load offset=0 (local.get $p)) (local.get $vd)))))
                (i32.shl
                  (i8x16.bitmask
              (v128.or
                (v128.or (i8x16.eq (v128.load offset=16 (local.get $p)) (local.get $lf)) (i8x16.eq (v128.load offset=16 (local.get $p)) (local.get $cr)))
                (v128.or (i8x16.eq (v128.load offset=16 (local.get $p)) (local.get $vq)) (i8x16.eq (v128.load offset=16 (local.get $p)) (local.get $vd)))))
                  (i32.const 16)))))
          (else
            (local.set $m (i32.const 0))
            (local.set $i (i32.sub (local.get $end) (local.get $p)))
            (block $built
              (loop $byte
                (br_if $built (i32.eqz (local.get $i)))
                (local.set $i (i32.sub (local.get $i) (i32.const 1)))
                (local.set $c (i32.load8_u (i32.add (local.get $p) (local.get $i))))
                (if (i32.or
                      (i32.or (i32.eq (local.get $c) (i32.const 10)) (i32.eq (local.get $c) (i32.const 13)))
                      (i32.or (i32.eq (local.get $c) (i32.const 34)) (i32.eq (local.get $c) (local.get $delim))))
                  (then (local.set $m (i32.or (local.get $m) (i32.shl (i32.const 1) (local.get $i))))))
                (br $byte)))))
        (block $bits
          (loop $bit
            (br_if $bits (i32.eqz (local.get $m)))
            (local.set $q (i32.add (local.get $p) (i32.ctz (local.get $m))))
            (local.set $m (i32.and (local.get $m) (i32.sub (local.get $m) (i32.const 1))))
            (block $next
              (br_if $next (i32.lt_u (local.get $q) (local.get $skipTo)))
              (local.set $c (i32.load8_u (local.get $q)))
              (if (local.get $inq)
                (then
                  (br_if $next (i32.ne (local.get $c) (i32.const 34)))
                  (if (i32.eq (i32.add (local.get $q) (i32.const 1)) (local.get $end))
                    (then
                      (local.set $qp (i32.const 1))
                      (br $next)))
                  (if (i32.eq (i32.load8_u offset=1 (local.get $q)) (i32.const 34))
                    (then (local.set $skipTo (i32.add (local.get $q) (i32.const 2))))
                    (else (local.set $inq (i32.const 0))))
                  (br $next)))
              (if (i32.eq (local.get $c) (local.get $delim))
                (then
                  (local.set $fields (i32.add (local.get $fields) (i32.const 1)))
                  (br $next)))
              (if (i32.eq (local.get $c) (i32.const 34))
                (then
                  (local.set $content (i32.const 1))
                  (local.set $before
                    (if (result i32) (i32.eq (local.get $q) (local.get $from))
                      (then (local.get $prev))
                      (else (i32.load8_u (i32.sub (local.get $q) (i32.const 1))))))
                  (if (i32.or
                        (i32.eq (local.get $before) (local.get $delim))
                        (i32.or (i32.eq (local.get $before) (i32.const 10))
                          (i32.eq (local.get $before) (i32.const 13))))
                    (then (local.set $inq (i32.const 1))))
                  (br $next)))
              ;; a line break outside quotes ends the record
              (if (if (result i32) (i32.or (local.get $content) (i32.gt_u (local.get $fields) (i32.const 1)))
                    (then (i32.const 1))
                    (else (call $visible (local.get $start) (local.get $q))))
                (then
                  (if (i32.and
                        (i32.and (i32.gt_u (local.get $expected) (i32.const 0))
                          (i32.ge_u (local.get $count) (local.get $skip)))
                        (i32.ne (local.get $fields) (local.get $expected)))
                    (then (local.set $ragged (i32.add (local.get $ragged) (i32.const 1)))))
                  (local.set $count (i32.add (local.get $count) (i32.const 1)))))
              (local.set $content (i32.const 0))
              (local.set $fields (i32.const 1))
              (local.set $start (i32.add (local.get $q) (i32.const 1))))
            (br $bit)))
        (local.set $p (i32.add (local.get $p) (i32.const 32)))
        (br $vec)))
    (if (i32.eqz (local.get $content))
      (then
        (if (i32.gt_u (local.get $fields) (i32.const 1))
          (then (local.set $content (i32.const 1)))
          (else (local.set $content (call $visible (local.get $start) (local.get $end)))))))
    (i32.store offset=0 (local.get $st) (local.get $count))
    (i32.store offset=4 (local.get $st) (local.get $ragged))
    (i32.store offset=8 (local.get $st) (local.get $fields))
    (i32.store offset=12 (local.get $st) (local.get $content))
    (i32.store offset=16 (local.get $st) (local.get $inq))
    (i32.store offset=20 (local.get $st) (local.get $qp))
    (i32.store offset=24 (local.get $st) (i32.load8_u (i32.sub (local.get $end) (i32.const 1)))))
)

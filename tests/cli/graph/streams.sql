-- Fixture for `gapscope graph --streams --range step` (CLI and unit tests).
-- The NVTX range "step" spans host time [1000, 10000] on thread 7.
-- Launched inside it, in host order (api_calls.start):
--   1100 k1 on stream 1 (GPU 2000-3000)     1200 k2 on stream 1 (GPU 3000-4000)
--   1300 cudaEventRecord (stream not recorded by schema v1)
--   1400 cudaStreamWaitEvent: stream 2 waits for event 99 (syncs kind 2)
--   1500 k3 on stream 2 (GPU 4000-5000)     1600 memcpy 1024 B on stream 2 (GPU 5000-5500)
-- Outside it: k4, launched at 20000.
-- Expected: 5 nodes (k1, k2 | wait, k3, memcpy) in 2 stream clusters;
-- stream-order edges k1->k2, wait->k3, k3->memcpy; one inferred event edge
-- k2->wait (k2 is the last op the thread launched on another stream before
-- the record call): 4 edges. Critical path k1, k2, wait, k3, memcpy =
-- 1000+1000+0+1000+500 = 3500 ns.
INSERT INTO strings VALUES (1, 'step'), (2, '_Z2k1v'), (3, '_Z2k2v'), (4, '_Z2k3v'),
  (5, 'cudaLaunchKernel'), (6, 'cudaEventRecord'), (7, 'cudaStreamWaitEvent'),
  (8, 'cudaMemcpyAsync'), (9, 'other');
INSERT INTO nvtx (id, start, end, kind, text_id, pid, tid) VALUES (1, 1000, 10000, 0, 1, 5, 7),
  (2, 0, 50000, 0, 9, 5, 7);
INSERT INTO api_calls (api, name_id, start, end, pid, tid, correlation_id) VALUES
  (1, 5, 1100, 1150, 5, 7, 1), (1, 5, 1200, 1250, 5, 7, 2), (1, 6, 1300, 1310, 5, 7, 3),
  (1, 7, 1400, 1410, 5, 7, 4), (1, 5, 1500, 1550, 5, 7, 5), (1, 8, 1600, 1650, 5, 7, 6),
  (1, 5, 20000, 20050, 5, 7, 7);
INSERT INTO kernels (id, start, end, device, stream, correlation_id, name_id) VALUES
  (1, 2000, 3000, 0, 1, 1, 2), (2, 3000, 4000, 0, 1, 2, 3), (3, 4000, 5000, 0, 2, 5, 4),
  (4, 21000, 22000, 0, 1, 7, 2);
INSERT INTO memcpys (id, start, end, device, stream, correlation_id, bytes, copy_kind, is_async)
  VALUES (1, 5000, 5500, 0, 2, 6, 1024, 1, 1);
INSERT INTO syncs (start, end, kind, implicit, api_name_id, device, stream, event, correlation_id)
  VALUES (1400, 1410, 2, 0, 7, 0, 2, 99, 4);

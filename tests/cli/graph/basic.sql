-- Fixture for the `gapscope graph` CLI tests. Figures expected by the tests
-- are worked out by hand in the comments here.
--
-- Graph 1 (created): 11 -> 12, 11 -> 13, 12 -> 14, 13 -> 14.
--   executable graph 100, whose nodes 111..114 were instantiated from 11..14;
--   launched twice. Measured (ns):  11: 1000, 3000 (mean 2000)
--   12: 5000, 7000 (mean 6000)  13 (memcpy): 500, 1500 (mean 1000)  14: 2000, 2000
--   GPU time 4000+12000+2000+4000 = 22000 ns = 22.000 us, 11.000 us per launch;
--   8 GPU ops. Critical path 11 -> 12 -> 14 = 2000+6000+2000 = 10.000 us.
-- Graph 2 (capture): chain 201 -> ... -> 210 of one kernel, then 211, a
--   child-graph node for graph 3; 11 nodes, 10 edges, never launched.
-- Graph 3 (clone of 9): 31 -> 32, the child graph of node 211.
--   Unmeasured: critical path by count: 201..210, 31, 32 = 12 nodes.
INSERT INTO strings VALUES (1, 'void scale<float, 4>(float*, int)');
INSERT INTO strings VALUES (2, '_Z4gemmPKfS0_Pfi');
INSERT INTO strings VALUES (3, '_Z4geluPf');
INSERT INTO strings VALUES (4, '_Z5smallv');
INSERT INTO strings VALUES (5, '_Z3fooIiEvv');
INSERT INTO graphs VALUES (1, NULL, 0, 1, 100, 0);
INSERT INTO graphs VALUES (2, NULL, 0, 1, 200, 2);
INSERT INTO graphs VALUES (3, 9, 0, 1, 300, 1);
INSERT INTO graph_nodes (node_id, graph_id, type, name_id, bytes) VALUES
  (11, 1, 0, 1, NULL), (12, 1, 0, 2, NULL), (13, 1, 1, NULL, 4096), (14, 1, 0, 3, NULL);
INSERT INTO graph_edges VALUES (1, 11, 12), (1, 11, 13), (1, 12, 14), (1, 13, 14);
INSERT INTO graph_execs VALUES (100, 1, 0, 150);
INSERT INTO graph_nodes (node_id, graph_id, type, name_id, original_node_id) VALUES
  (111, 100, 0, 1, 11), (112, 100, 0, 2, 12), (113, 100, 1, NULL, 13), (114, 100, 0, 3, 14);
INSERT INTO graph_launches VALUES (1, 100, 7, 500, 1000, 1010, 42), (2, 100, 7, 501, 9000, 9010, 42);
INSERT INTO kernels (start, end, stream, correlation_id, name_id, graph_id, graph_node_id) VALUES
  (2000, 3000, 7, 500, 1, 100, 111), (3000, 8000, 7, 500, 2, 100, 112),
  (8000, 10000, 7, 500, 3, 100, 114),
  (10000, 13000, 7, 501, 1, 100, 111), (13000, 20000, 7, 501, 2, 100, 112),
  (20000, 22000, 7, 501, 3, 100, 114),
  (30000, 31000, 7, 900, 3, 0, 0);
INSERT INTO memcpys (start, end, stream, correlation_id, bytes, copy_kind, graph_id, graph_node_id) VALUES
  (3000, 3500, 7, 500, 4096, 8, 100, 113), (13000, 14500, 7, 501, 4096, 8, 100, 113);
INSERT INTO graph_nodes (node_id, graph_id, type, name_id) VALUES
  (201, 2, 0, 4), (202, 2, 0, 4), (203, 2, 0, 4), (204, 2, 0, 4), (205, 2, 0, 4),
  (206, 2, 0, 4), (207, 2, 0, 4), (208, 2, 0, 4), (209, 2, 0, 4), (210, 2, 0, 4);
INSERT INTO graph_nodes (node_id, graph_id, type, child_graph_id) VALUES (211, 2, 4, 3);
INSERT INTO graph_edges VALUES (2, 201, 202), (2, 202, 203), (2, 203, 204), (2, 204, 205),
  (2, 205, 206), (2, 206, 207), (2, 207, 208), (2, 208, 209), (2, 209, 210), (2, 210, 211);
INSERT INTO graph_nodes (node_id, graph_id, type, name_id) VALUES (31, 3, 0, 5), (32, 3, 5, NULL);
INSERT INTO graph_edges VALUES (3, 31, 32);
-- Graph 4 (created): 41 -> 42. Its instantiation's clones 441, 442 (and
-- their edge) are reported in graph 4 itself: they are the executable
-- graph's nodes, not the user's, so graph 4 lists 2 nodes and 1 edge.
-- Graph id 500 holds only a clone (551 of 41): an executable graph's copy,
-- not listed. Measured: 441: 300, 442: 700, 551: 1000 -> graph 4 has 3 GPU
-- ops, 2000 ns = 2.000 us in its 1 launch (exec 400).
INSERT INTO graphs VALUES (4, NULL, 0, 1, 400, 0);
INSERT INTO graph_nodes (node_id, graph_id, type, name_id, original_node_id) VALUES
  (41, 4, 0, 3, NULL), (42, 4, 0, 3, NULL), (441, 4, 0, 3, 41), (442, 4, 0, 3, 42),
  (551, 500, 0, 3, 41);
INSERT INTO graph_edges VALUES (4, 41, 42), (4, 441, 442);
INSERT INTO graph_execs VALUES (400, 4, 0, 450);
INSERT INTO graph_launches VALUES (3, 400, 7, 600, 40000, 40010, 42);
INSERT INTO kernels (start, end, stream, correlation_id, name_id, graph_id, graph_node_id) VALUES
  (41000, 41300, 7, 600, 3, 400, 441), (41300, 42000, 7, 600, 3, 400, 442),
  (43000, 44000, 7, 601, 3, 500, 551);
-- Node updates in place (graph_node_updates): node 41 of graph 4 had its
-- parameters set twice in exec 400 -> graph 4 notes 2; node 31 of the child
-- graph 3 was updated once (no exec) -> graph 3 notes 1 after its child-graph
-- note; graph 2, which holds graph 3, has none of its own.
INSERT INTO graph_node_updates VALUES (45000, 2, 41, 4, 400), (46000, 2, 41, 4, 400),
  (47000, 1, 31, 3, NULL);

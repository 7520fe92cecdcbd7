#!/bin/sh
# run_fuzz.sh FUZZER DAMAGED_MKDB BUILD_DIR WORKDIR - the bounded fuzz run
# of ctest (label fuzz): seeds the corpus with small traces written by
# damaged_mkdb (the CLI tests' writer: real schema, then SQL) and with the
# databases the CLI tests left in the build tree (regular files only: one
# test makes a FIFO named *.db, and cp would block on it; 40 at most, up to
# 200 KB each), then
# runs the libFuzzer target for GAPSCOPE_FUZZ_SECONDS (30). Exit 77
# (skipped) without a fuzzer; libFuzzer's exit status otherwise (non-zero
# on a crash, a sanitizer report, a leak or a hang past -timeout).
fuzzer=$1 mkdb=$2 build=$3 work=$4
if [ -z "$fuzzer" ] || [ ! -x "$fuzzer" ]; then
	echo "fuzz_trace: no clang libFuzzer here: skipped"
	exit 77
fi
secs=${GAPSCOPE_FUZZ_SECONDS:-30}
corpus=$work/corpus
mkdir -p "$corpus" "$work/artifacts" || exit 1
base="INSERT INTO strings VALUES(1,'cudaLaunchKernel'),(2,'cudaStreamSynchronize'),(3,'gemm'),(4,'step');
INSERT INTO devices(id,name,cc_major) VALUES(0,'Test GPU',9);
INSERT INTO api_calls(id,api,name_id,start,end,pid,tid,correlation_id) VALUES(1,1,1,100,200,1,11,1),(2,1,1,2700,2800,1,11,2);
INSERT INTO kernels(id,start,end,device,stream,correlation_id,name_id,graph_id,graph_node_id) VALUES(1,1000,2000,0,7,1,3,0,0),(2,3000,4000,0,7,2,3,1,12);
INSERT INTO memcpys(id,start,end,device,stream,correlation_id,bytes,copy_kind,src_kind) VALUES(1,5000,5100,0,7,90,64,1,1);
INSERT INTO memsets(id,start,end,device,stream,correlation_id,bytes) VALUES(1,5200,5300,0,7,91,64);
INSERT INTO syncs(id,start,end,kind,implicit,api_name_id,device,stream,correlation_id,pid,tid,event) VALUES(1,4100,4900,3,0,2,0,7,50,1,11,77);
INSERT INTO events(id,event,stream,device,correlation_id,start) VALUES(1,77,7,0,60,150);
INSERT INTO nvtx(id,start,end,kind,text_id,pid,tid) VALUES(1,0,6000,0,4,1,11);
INSERT INTO graphs(graph_id,origin) VALUES(1,0);
INSERT INTO graph_nodes(node_id,graph_id,type,name_id) VALUES(11,1,3,NULL),(12,1,0,3);
INSERT INTO graph_edges(graph_id,from_node,to_node) VALUES(1,11,12);
INSERT INTO meta VALUES('finalized','1'),('start_ns','0'),('stop_ns','7000');"
"$mkdb" "$corpus/seed_base.db" "$base" || exit 1
"$mkdb" "$corpus/seed_empty.db" "" || exit 1
"$mkdb" "$corpus/seed_indexed.db" "$base CREATE INDEX k_s ON kernels(device,start);
CREATE INDEX a_c ON api_calls(correlation_id);" || exit 1
find "$build/tests" -type f -name '*.db' -size -200k 2>/dev/null | head -40 | while read -r f; do
	cp "$f" "$corpus/cli_$(echo "$f" | cksum | cut -d' ' -f1).db"
done
exec "$fuzzer" -max_total_time="$secs" -timeout="${GAPSCOPE_FUZZ_TIMEOUT:-20}" -rss_limit_mb=4096 -max_len=600000 \
	-print_final_stats=1 -artifact_prefix="$work/artifacts/" "$corpus"

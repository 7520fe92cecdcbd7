#!/usr/bin/env bash
# check_layers.sh VIEWER_DIR - the viewer's rooms link only downward
# (viewer/CMakeLists.txt): analysis <- trace <- render <- cmd. The build
# already refuses an upward include between rooms that do not link each other
# (each room's headers are on the include path of the rooms above it only);
# this checks what the compiler cannot see:
#   - no file outside trace/ names SQLite (sqlite3.h, sqlite3_*, SQLITE_*);
#   - each room includes only its own headers and those of the rooms below
#     (a header found through a transitive include path would still compile);
#   - each file opens with the line that says what its room is for
#     (" * Room viewer/<room>/: ...", CONVENTIONS.md).
# Prints one line per violation and "N passed, N failed"; exits 1 on any.
set -u
v=${1:?usage: check_layers.sh VIEWER_DIR}
pass=0
fail=0
check() { # check <0 = ok> <what>
	if [ "$1" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $2"; fi
}
for room in analysis trace render cmd; do
	[ -d "$v/$room" ] || { check 1 "room $room missing"; continue; }
done
# SQLite only in trace/
for f in "$v"/analysis/* "$v"/render/*.[ch] "$v"/cmd/*.[ch]; do
	[ -f "$f" ] || continue
	if grep -nE 'sqlite3|SQLITE_' "$f" >/dev/null; then
		check 1 "$f names SQLite: only viewer/trace/ may ($(grep -nE 'sqlite3|SQLITE_' "$f" | head -1))"
	else
		check 0 "$f"
	fi
done
# each file's opening comment names its room
for room in analysis trace render cmd; do
	for f in "$v/$room"/*.[ch]; do
		[ -f "$f" ] || continue
		if sed -n 2p "$f" | grep -q "^ \* Room viewer/$room/: "; then
			check 0 "$f"
		else
			check 1 "$f: its second line should be \" * Room viewer/$room/: <what the room is for>\""
		fi
	done
done
# allowed rooms for each room's quoted includes
allowed() {
	case $1 in
	analysis) echo "analysis" ;;
	trace) echo "trace analysis" ;;
	render) echo "render trace analysis" ;;
	cmd) echo "cmd render trace analysis" ;;
	esac
}
for room in analysis trace render cmd; do
	for f in "$v/$room"/*.[ch]; do
		[ -f "$f" ] || continue
		while IFS= read -r inc; do
			case $inc in
			gapscope/*) continue ;;         # the trace format, owned by collector/
			html_assets.h) [ "$room" = render ] && continue ;; # generated for render/
			esac
			found=""
			for r in analysis trace render cmd; do
				[ -f "$v/$r/$inc" ] && found=$r
			done
			ok=1
			for r in $(allowed "$room"); do
				[ "$r" = "$found" ] && ok=0
			done
			check $ok "$f includes \"$inc\" (room ${found:-unknown}); $room/ may include only: $(allowed "$room")"
		done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
	done
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]

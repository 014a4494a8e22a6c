# cmake -P script behind the `epoch_bad_options` test: every bad command line of the epoch
# benchmark (bench/epoch, what scripts/demo runs) exits 2 before touching the GPU, with a message
# that names the option (and for values, the range).
#   cmake -DEPOCH=<path to epoch> -DWORK_DIR=<dir> -P check_options.cmake
# Each case: arguments separated by '|', then '=>' and a text the message must contain, with
# '{' and '}' standing for '[' and ']' (brackets would change how CMake splits the list).
set(cases
  "--bogus=>unknown option '--bogus'"
  "--codec|int3=>--codec expects one of fp32 fp16 bf16 int8 fp8 int4, got 'int3'"
  "--codec|int8|--paths|cpu,gpu=>--codec int8 applies to the paths gnndirect, cached, graph-hbm, cached-graph-hbm and transfer, and --paths names none of them"
  "--paths|gpu|--codec|fp16=>--codec fp16 applies to the paths"
  "--bogus|1=>unknown option '--bogus'"
  "--scale=>--scale needs a value"
  "--scale|-1=>--scale expects a number > 0, got '-1'"
  "--scale|nan=>--scale expects a number > 0"
  "--batch-size|0=>--batch-size expects an integer in {1, "
  "--paths|foo=>--paths expects a comma-separated list of gnndirect cached cpu gpu transfer graph-hbm cached-graph-hbm ('foo'"
  "--paths|gnndirect,transfers=>('transfers' is none of them)"
  "--paths|gnndirect,,cpu=>--paths expects"
  "--epochs|0=>--epochs expects an integer in {1, 1000}, got '0'"
  "--cache-pct|150=>--cache-pct expects a percentage in (0, 100}, got '150'"
  "--workers|0=>--workers expects an integer in {1, 256}, got '0'"
  "--sampling-max-blocks|-1=>--sampling-max-blocks expects an integer in {0, 65536}, got '-1'"
  "--depth|x=>--depth expects an integer in {1, 256}, got 'x'"
  "--workers|1,,2=>--workers expects a comma-separated list of integers in {1, 256} (no empty entries), got '1,,2'"
  "--workers|0,2=>--workers expects an integer in {1, 256}, got '0'"
  "--workers|2,300=>--workers expects an integer in {1, 256}, got '300'"
  "--workers|1,2,=>--workers expects a comma-separated list of integers in {1, 256} (no empty entries)"
  "--depth|2,x=>--depth expects an integer in {1, 256}, got 'x'"
  "--depth|3,3=>--depth expects distinct integers in {1, 256} ('3' repeats), got '3,3'"
  "--workers|1,2|--paths|cpu,transfer=>--workers/--depth/--gather-max-blocks lists (a sweep) need the gnndirect path"
  "--gather-max-blocks|-1=>--gather-max-blocks expects an integer in {0, 65536}, got '-1'"
  "--gather-max-blocks|32,70000=>--gather-max-blocks expects an integer in {0, 65536}, got '70000'"
  "--gather-max-blocks|32,128|--paths|cpu=>--workers/--depth/--gather-max-blocks lists (a sweep) need the gnndirect path"
  "--fanouts|15,,5=>--fanouts expects a comma-separated list of integers >= 0, one per layer (no empty entries), got '15,,5'"
  "--fanouts|15,-1=>--fanouts expects an integer in {0, "
  "--seed|-3=>--seed expects an integer in {0, 2^64)"
  "--preset|huge=>--preset expects one of small, products, reddit, twitter, papers100m, got 'huge'"
  "--preset|Twitter=>--preset expects one of small, products, reddit, twitter, papers100m, got 'Twitter'"
  "--json|${WORK_DIR}/no-such-dir/out.json=>--json: cannot write"
  "--overlap-sweep|prio,fast=>--overlap-sweep expects all or a comma-separated list of base prio sprio noprio gb32 gbfull sbsms prio+sbsms unsorted more w1 calib depth+1 ('fast' is none of them)"
  "--overlap-sweep|prio,prio=>--overlap-sweep expects distinct variants ('prio' repeats)"
  "--overlap-sweep|all|--workers|2,4=>--overlap-sweep and --workers/--depth/--gather-max-blocks lists are two sweeps"
  "--timeline-variants|w2=>--timeline-variants expects all or a comma-separated list of"
  "--gather-priority|2=>--gather-priority expects an integer in {-1, 1}, got '2'"
  "--gather-order|random=>--gather-order expects one of auto, none, sorted, got 'random'"
  "--timeline=>--timeline needs a value"
  "--calibrate-gather|yes=>--calibrate-gather expects an integer in {0, 1}, got 'yes'"
  "--preset|papers100m|--scale|1000=>of host memory"
  "--preset|twitter|--scale|1000=>use a smaller --scale")
set(failures 0)
foreach(case IN LISTS cases)
  string(FIND "${case}" "=>" split)
  string(SUBSTRING "${case}" 0 ${split} args)
  math(EXPR from "${split} + 2")
  string(SUBSTRING "${case}" ${from} -1 expected)
  string(REPLACE "{" "[" expected "${expected}")
  string(REPLACE "}" "]" expected "${expected}")
  string(REPLACE "|" ";" args "${args}")
  execute_process(COMMAND ${EPOCH} ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                  TIMEOUT 60)
  string(FIND "${err}" "${expected}" at)
  if(NOT rc EQUAL 2 OR at EQUAL -1)
    message(SEND_ERROR "epoch ${args}: exit ${rc}, expected 2 and a message containing\n  ${expected}\ngot:\n${err}${out}")
    math(EXPR failures "${failures} + 1")
  endif()
endforeach()
list(LENGTH cases count)
if(failures)
  message(FATAL_ERROR "${failures} of ${count} bad command lines not reported as expected")
endif()
message(STATUS "${count} bad command lines rejected with their own message")

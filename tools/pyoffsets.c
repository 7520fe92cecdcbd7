/*
 * pyoffsets.c - prints the offsets of CPython's internals that
 * collector/pyframes.c reads without the GIL (its table py_layouts), for
 * the CPython whose headers it is compiled against:
 *   gcc -I"$(python3.11 -c 'import sysconfig; print(sysconfig.get_paths()["include"])')" \
 *       tools/pyoffsets.c -o /tmp/pyoff && /tmp/pyoff
 * A developer's tool, not built by CMake; run it to add a CPython version.
 */
#define Py_BUILD_CORE 1
#include <Python.h>
#if PY_MINOR_VERSION <= 10
#include <frameobject.h>
#endif
#include <stddef.h>
#include <stdio.h>
#if PY_MINOR_VERSION >= 11
#include "internal/pycore_frame.h"
#endif
#if PY_MINOR_VERSION >= 11
#include "internal/pycore_code.h"
#endif
int main(void){
  printf("minor %d\n", PY_MINOR_VERSION);
#if PY_MINOR_VERSION <= 10
  printf("TSTATE_FRAME %zu\n", offsetof(PyThreadState, frame));
  printf("FRAME_BACK %zu FRAME_CODE %zu FRAME_LASTI %zu FRAME_LINENO %zu FRAME_TRACE %zu\n", offsetof(PyFrameObject,f_back), offsetof(PyFrameObject,f_code), offsetof(PyFrameObject,f_lasti), offsetof(PyFrameObject,f_lineno), offsetof(PyFrameObject,f_trace));
#elif PY_MINOR_VERSION <= 12
  printf("TSTATE_CFRAME %zu CFRAME_CURRENT %zu\n", offsetof(PyThreadState, cframe), offsetof(_PyCFrame, current_frame));
#else
  printf("TSTATE_CURRENT %zu\n", offsetof(PyThreadState, current_frame));
#endif
#if PY_MINOR_VERSION >= 11
#if PY_MINOR_VERSION >= 13
  printf("IF_CODE %zu IF_PREV %zu IF_INSTR %zu IF_OWNER %zu\n", offsetof(_PyInterpreterFrame,f_executable), offsetof(_PyInterpreterFrame,previous), offsetof(_PyInterpreterFrame,instr_ptr), offsetof(_PyInterpreterFrame,owner));
#else
  printf("IF_CODE %zu IF_PREV %zu IF_INSTR %zu IF_OWNER %zu\n", offsetof(_PyInterpreterFrame,f_code), offsetof(_PyInterpreterFrame,previous), offsetof(_PyInterpreterFrame,prev_instr), offsetof(_PyInterpreterFrame,owner));
#endif
  printf("CODE_ADAPTIVE %zu FIRSTTRACEABLE %zu\n", offsetof(PyCodeObject,co_code_adaptive), offsetof(PyCodeObject,_co_firsttraceable));
  printf("OWNED_BY_GEN %d\n", FRAME_OWNED_BY_GENERATOR);
#endif
  printf("CODE_FILENAME %zu CODE_NAME %zu\n", offsetof(PyCodeObject,co_filename), offsetof(PyCodeObject,co_name));
  printf("STR_LENGTH %zu STR_STATE %zu ASCII_SIZE %zu\n", offsetof(PyASCIIObject,length), offsetof(PyASCIIObject,state), sizeof(PyASCIIObject));
  PyASCIIObject o; memset(&o,0,sizeof o); o.state.compact=1; unsigned s; memcpy(&s,&o.state,4); printf("compact bit %x ", s);
  memset(&o,0,sizeof o); o.state.ascii=1; memcpy(&s,&o.state,4); printf("ascii bit %x\n", s);
  return 0;
}

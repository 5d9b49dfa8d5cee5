/*
 * tests/fuzz/libfuzzer.c - libFuzzer's entry (-DCES_FUZZ=ON, clang).
 */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return ces_fuzz_one(data, size);
}

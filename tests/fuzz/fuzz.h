/*
 * tests/fuzz/fuzz.h - the fuzz target's entry, shared by the libFuzzer
 * build and the replay driver.
 */
#ifndef CES_FUZZ_H
#define CES_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* Runs one input through every text reader; aborts on a broken promise. */
int ces_fuzz_one(const uint8_t *data, size_t size);

#endif

// Whether this test program is built with AddressSanitizer, under GCC (__SANITIZE_ADDRESS__) or
// clang (__has_feature(address_sanitizer)): tests that limit the address space skip under it,
// since its shadow memory alone reserves terabytes.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define HFSIM_TEST_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HFSIM_TEST_ADDRESS_SANITIZER 1
#endif
#endif
#ifndef HFSIM_TEST_ADDRESS_SANITIZER
#define HFSIM_TEST_ADDRESS_SANITIZER 0
#endif

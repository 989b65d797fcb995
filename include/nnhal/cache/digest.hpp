// Digests for the compilation cache: the `digest` concept and the default, SHA-256 from
// OpenSSL's libcrypto. nnhal contains no cryptography of its own.
//
// The default needs NNHAL_WITH_OPENSSL defined and libcrypto linked (CMake: the
// NNHAL_WITH_OPENSSL option; in-tree targets link nnhal_openssl). Define it the same way
// in every translation unit of a program. Without it `default_digest` is `no_digest`,
// and saving to or preparing from the cache fails with GENERAL_FAILURE saying so; a
// driver may also pass its own digest (e.g. BoringSSL's SHA-256 on Android).
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "nnhal/types/error.hpp"

#if defined(NNHAL_WITH_OPENSSL)
#include <openssl/evp.h>
#endif

namespace nnhal::cache {

/// A 32-byte digest value (the token store keeps these per token).
using digest_value = std::array<std::uint8_t, 32>;

/// A one-shot hash: default-construct, update() with the bytes in order, final() once.
/// `name` is stored with the token mappings (changing the digest invalidates them);
/// `available` false makes every cache operation fail before it touches a file.
template <class D>
concept digest = std::default_initializable<D> && requires(D d, std::span<const std::byte> bytes) {
  { D::name } -> std::convertible_to<std::string_view>;
  { D::available } -> std::convertible_to<bool>;
  d.update(bytes);
  { d.final() } -> std::same_as<types::result<digest_value>>;
};

/// Stands in when no digest library was configured: the cache refuses to work.
struct no_digest {
  static constexpr std::string_view name = "none";
  static constexpr bool available = false;
  void update(std::span<const std::byte>) noexcept {}
  types::result<digest_value> final() {
    return types::make_error(types::ErrorStatus::GENERAL_FAILURE,
                             "compilation cache unavailable: nnhal was built without a digest "
                             "(configure with -DNNHAL_WITH_OPENSSL=ON, or pass a digest type)");
  }
};

#if defined(NNHAL_WITH_OPENSSL)
/// SHA-256 through OpenSSL's EVP interface.
class sha256 {
 public:
  static constexpr std::string_view name = "sha256";
  static constexpr bool available = true;

  sha256() : ctx_(EVP_MD_CTX_new()) {
    ok_ = ctx_ != nullptr && EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr) == 1;
  }
  void update(std::span<const std::byte> bytes) noexcept {
    if (ok_ && !bytes.empty()) ok_ = EVP_DigestUpdate(ctx_.get(), bytes.data(), bytes.size()) == 1;
  }
  types::result<digest_value> final() {
    digest_value out{};
    unsigned int len = 0;
    if (!ok_ || EVP_DigestFinal_ex(ctx_.get(), out.data(), &len) != 1 || len != out.size())
      return types::make_error(types::ErrorStatus::GENERAL_FAILURE, "SHA-256 (OpenSSL) failed");
    ok_ = false;  // one-shot
    return out;
  }

 private:
  struct ctx_free {
    void operator()(EVP_MD_CTX* c) const noexcept { EVP_MD_CTX_free(c); }
  };
  std::unique_ptr<EVP_MD_CTX, ctx_free> ctx_;
  bool ok_ = false;
};
using default_digest = sha256;
#else
using default_digest = no_digest;
#endif

static_assert(digest<no_digest>);
static_assert(digest<default_digest>);

}  // namespace nnhal::cache

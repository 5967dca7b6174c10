// TLS and mutual TLS on the real server, with certificates made by openssl for the test.
#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>

#include "client/client.h"
#include "server_process.h"

namespace capplan::testing {
namespace {

// A CA, a server certificate for 127.0.0.1 and a client certificate, all signed by the CA.
void MakeCertificates(const std::string& d) {
  std::ofstream(d + "/san.ext") << "subjectAltName=DNS:localhost,IP:127.0.0.1\n";
  const std::string script =
      "set -e; cd " + d +
      ";"
      "openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 1 -subj /CN=capplan-test-ca;"
      "openssl req -newkey rsa:2048 -nodes -keyout server.key -out server.csr -subj /CN=localhost;"
      "openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 1 -extfile "
      "san.ext;"
      "openssl req -newkey rsa:2048 -nodes -keyout client.key -out client.csr -subj /CN=ops;"
      "openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out client.pem -days 1";
  ExitResult r = RunProgram({"/bin/sh", "-c", script}, 60000);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
}

std::vector<std::string> Args(const TempDir& dir, bool mutual) {
  std::vector<std::string> a = {"--listen=127.0.0.1:0", "--metrics_listen=127.0.0.1:0", "--db=" + dir.path() + "/c.db",
                                "--tls_cert_file=" + dir.path() + "/server.pem",
                                "--tls_key_file=" + dir.path() + "/server.key"};
  if (mutual) a.push_back("--tls_client_ca_file=" + dir.path() + "/ca.pem");
  return a;
}

absl::StatusOr<std::string> Health(const ServerProcess& s, const std::string& ca, const std::string& cert = "",
                                   const std::string& key = "") {
  client::ClientOptions o;
  o.server = s.grpc_address();
  o.timeout = std::chrono::milliseconds(3000);
  o.max_read_attempts = 1;
  o.tls_ca_file = ca;
  o.tls_cert_file = cert;
  o.tls_key_file = key;
  return client::Client(o).Health();
}

TEST(TlsTest, ServesTlsAndRefusesPlaintext) {
  TempDir dir;
  MakeCertificates(dir.path());
  ServerProcess server(Args(dir, false));
  ASSERT_TRUE(server.started()) << server.Wait(0).stderr_text;
  absl::StatusOr<std::string> tls = Health(server, dir.path() + "/ca.pem");
  ASSERT_TRUE(tls.ok()) << tls.status();
  EXPECT_EQ(*tls, "SERVING");
  EXPECT_FALSE(Health(server, "").ok());  // plaintext client
}

TEST(TlsTest, MutualTlsNeedsAClientCertificate) {
  TempDir dir;
  MakeCertificates(dir.path());
  ServerProcess server(Args(dir, true));
  ASSERT_TRUE(server.started()) << server.Wait(0).stderr_text;
  EXPECT_FALSE(Health(server, dir.path() + "/ca.pem").ok());
  absl::StatusOr<std::string> ok =
      Health(server, dir.path() + "/ca.pem", dir.path() + "/client.pem", dir.path() + "/client.key");
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(*ok, "SERVING");
}

TEST(TlsTest, UnreadableCertificateFailsStartup) {
  TempDir dir;
  ExitResult r = RunProgram(
      {CAPPLAN_SERVER_BINARY, "--listen=127.0.0.1:0", "--metrics_listen=127.0.0.1:0", "--db=" + dir.path() + "/c.db",
       "--tls_cert_file=" + dir.path() + "/none.pem", "--tls_key_file=" + dir.path() + "/none.key"},
      20000);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.stderr_text.find("tls_cert_file"), std::string::npos) << r.stderr_text;
}

// The HTTP/JSON listener serves plaintext (Debian's civetweb cannot serve TLS; see
// server/server.cc): with TLS on gRPC it may not listen beyond loopback unless told to, or it
// would serve the whole API without TLS or a client certificate.
TEST(TlsTest, PlaintextHttpBeyondLoopbackIsRefusedWhileGrpcRequiresMutualTls) {
  TempDir dir;
  MakeCertificates(dir.path());
  for (const std::string http : {"0.0.0.0:0", ":0", "[::]:0"}) {
    std::vector<std::string> args = Args(dir, true);
    args.insert(args.begin(), CAPPLAN_SERVER_BINARY);
    args.push_back("--http_listen=" + http);
    const ExitResult r = RunProgram(args, 20000);
    EXPECT_EQ(r.exit_code, 1) << http << "\n" << r.stdout_text;
    EXPECT_NE(r.stderr_text.find("http_listen " + http), std::string::npos) << r.stderr_text;
    EXPECT_NE(r.stderr_text.find("client certificates"), std::string::npos) << r.stderr_text;
    EXPECT_NE(r.stderr_text.find("--http_allow_plaintext"), std::string::npos) << r.stderr_text;
  }
}

TEST(TlsTest, PlaintextHttpServesOnLoopbackOrWhenAllowed) {
  TempDir dir;
  MakeCertificates(dir.path());
  std::vector<std::string> loopback = Args(dir, true);
  loopback.push_back("--http_listen=127.0.0.1:0");
  ServerProcess local(loopback);
  ASSERT_TRUE(local.started()) << local.Wait(0).stderr_text;
  int status = 0;
  HttpGet(local.http_port(), "/v1/health", &status);
  EXPECT_EQ(status, 200);

  std::vector<std::string> allowed = Args(dir, true);
  allowed.push_back("--http_listen=0.0.0.0:0");
  allowed.push_back("--http_allow_plaintext");
  ServerProcess proxied(allowed);
  ASSERT_TRUE(proxied.started()) << proxied.Wait(0).stderr_text;
  HttpGet(proxied.http_port(), "/v1/health", &status);
  EXPECT_EQ(status, 200);

  // The same by the environment, as the container sets its addresses.
  std::vector<std::string> by_env = Args(dir, true);
  by_env.push_back("--http_listen=0.0.0.0:0");
  ServerProcess env(by_env, {{"CAPPLAN_HTTP_ALLOW_PLAINTEXT", "1"}});
  ASSERT_TRUE(env.started()) << env.Wait(0).stderr_text;
  // gRPC still refuses a client without a certificate.
  EXPECT_FALSE(Health(env, dir.path() + "/ca.pem").ok());
}

}  // namespace
}  // namespace capplan::testing

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

}  // namespace
}  // namespace capplan::testing

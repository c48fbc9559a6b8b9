using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;
using System.Net.Http;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Newtonsoft.Json.Linq;
using NUnit.Framework;

namespace NpcBrain.Client.Tests
{
    /// <summary>
    /// The client against a real <c>npc-brain serve</c> (NPC_BRAIN_URL) and against a
    /// gateway that misbehaves on purpose (NPC_BRAIN_FAULT_URL: the Godot addon's
    /// godot_addon/tests/web/run.py FaultGateway). tests/unity/test_csharp_client.py
    /// starts both, compiles this package with mcs and runs these tests with NUnit.
    /// </summary>
    [TestFixture]
    public class ClientTests
    {
        static readonly DateTime Morning = new DateTime(2031, 5, 2, 8, 0, 0, DateTimeKind.Utc);

        static string Env(string name)
        {
            var value = Environment.GetEnvironmentVariable(name);
            if (string.IsNullOrEmpty(value))
            {
                Assert.Fail(name + " is not set: run these tests through tests/unity/test_csharp_client.py");
            }
            return value;
        }

        static NpcBrainClient Client(string url = null, int retries = 3)
        {
            return new NpcBrainClient(new NpcBrainClientOptions
            {
                ServerUrl = url ?? Env("NPC_BRAIN_URL"),
                WorldId = "unity-tests",
                MaxRetries = retries,
                RetryDelay = TimeSpan.FromMilliseconds(50),
                Timeout = TimeSpan.FromSeconds(120),
            });
        }

        static async Task<NpcBrainException> Fails(Func<Task> call)
        {
            try
            {
                await call();
            }
            catch (NpcBrainException error)
            {
                return error;
            }
            Assert.Fail("the call did not fail");
            return null;
        }

        /// <summary>What the fault gateway received for an agent id: each request's method.</summary>
        static async Task<List<string>> Received(string agentId)
        {
            using (var http = new HttpClient())
            {
                var body = new StringContent("{\"agent_id\": \"" + agentId + "\"}", Encoding.UTF8, "application/json");
                var answer = await http.PostAsync(Env("NPC_BRAIN_FAULT_URL") + "/v1/Faults", body);
                var seen = JObject.Parse(await answer.Content.ReadAsStringAsync());
                return seen["requests"].Select(r => (string)r["method"]).ToList();
            }
        }

        static async Task<Agent> Keeper(NpcBrainClient client, string id)
        {
            return await client.UpsertAgentAsync(new UpsertAgentRequest
            {
                AgentId = id,
                GameTime = Morning,
                Persona = new Persona
                {
                    Name = "Ines Varga",
                    Age = 41,
                    Innate = "patient, dry-humoured",
                    Learned = "Ines Varga is the quartermaster of Relay Station Kestrel, who hands out "
                        + "oxygen filters and spare suits.",
                    Lifestyle = "wakes at 6, opens the stores at 8",
                    HomeAddress = "Kestrel:Stores",
                    Pronouns = "she",
                },
            });
        }

        [Test]
        public async Task UpsertAgentThenGetAgentReturnTheStoredPersona()
        {
            using (var client = Client())
            {
                var stored = await Keeper(client, "ines");
                var read = await client.GetAgentAsync(new GetAgentRequest { AgentId = "ines" });
                Assert.AreEqual("unity-tests", stored.WorldId);
                Assert.AreEqual("Ines Varga", read.Persona.Name);
                Assert.AreEqual(41, read.Persona.Age);
                Assert.IsTrue(read.PlanningEnabled);
            }
        }

        [Test]
        public async Task PerceiveStoresAMemoryAtTheGameTime()
        {
            using (var client = Client())
            {
                await Keeper(client, "ines-perceive");
                var perceived = await client.PerceiveAsync(new PerceiveRequest
                {
                    AgentId = "ines-perceive",
                    GameTime = Morning.AddMinutes(5),
                    Observations = { new Observation { Text = "A courier left two crates of filters at the Stores", Importance = 4 } },
                });
                Assert.AreEqual(1, perceived.MemoryIds.Count);
                var listed = await client.ListMemoriesAsync(new ListMemoriesRequest { AgentId = "ines-perceive" });
                var memory = listed.Memories.Single(m => m.MemoryId == perceived.MemoryIds[0]);
                Assert.AreEqual(MemoryKind.Observation, memory.Kind);
                Assert.AreEqual(Morning.AddMinutes(5), memory.Created);
                StringAssert.Contains("crates of filters", memory.Description);
            }
        }

        [Test]
        public async Task TickAnswersEachAgentWithoutWaitingForTheModel()
        {
            using (var client = Client())
            {
                await Keeper(client, "ines-tick");
                var ticked = await client.TickAsync(new TickRequest
                {
                    GameTime = Morning.AddMinutes(10),
                    MaxWaitMs = 0,
                    Agents = { new AgentTick { AgentId = "ines-tick", Observations = { new Observation { Text = "The air recycler hums" } } } },
                });
                var result = ticked.Results.Single();
                Assert.AreEqual("ines-tick", result.AgentId);
                Assert.AreEqual(1, result.MemoryIds.Count);
                Assert.IsTrue(result.Pending || result.Action != null);
            }
        }

        [Test]
        public async Task ConverseStreamsTheReplyAndEndsWithTheWholeOfIt()
        {
            using (var client = Client())
            {
                await Keeper(client, "ines-talk");
                var tokens = new List<string>();
                var reply = await client.ConverseAsync(
                    new ConverseRequest
                    {
                        AgentId = "ines-talk",
                        GameTime = Morning.AddMinutes(15),
                        SpeakerId = "player",
                        Utterance = "Hello Ines! What do you do here?",
                    },
                    tokens.Add);
                Assert.IsNotEmpty(tokens);
                Assert.AreEqual(string.Concat(tokens), reply.Text);
                Assert.AreEqual("ines-talk", reply.SpeakerId);
                Assert.IsNotEmpty(reply.Act);
                var goodbye = await client.ConverseAsync(new ConverseRequest
                {
                    AgentId = "ines-talk",
                    GameTime = Morning.AddMinutes(16),
                    SpeakerId = "player",
                    Utterance = "Thanks, goodbye!",
                });
                Assert.IsTrue(goodbye.EndConversation, goodbye.Text);
            }
        }

        [Test]
        public async Task ADeclaredActionIsChosenAndItsOutcomeRemembered()
        {
            using (var client = Client())
            {
                var sell = new GameAction
                {
                    Name = "sell",
                    Description = "sell one of the station stores",
                    Currency = "credits",
                    Arguments =
                    {
                        new ActionArgument
                        {
                            Name = "item",
                            Type = ArgumentType.Item,
                            Options = { new ActionOption { Value = "ration_pack", Label = "a ration pack", Price = 4 } },
                        },
                    },
                };
                await client.UpsertAgentAsync(new UpsertAgentRequest
                {
                    AgentId = "ines-sells",
                    GameTime = Morning,
                    Persona = new Persona { Name = "Ines Varga", Learned = "quartermaster of Relay Station Kestrel" },
                    Actions = { sell },
                });
                var reply = await client.ConverseAsync(new ConverseRequest
                {
                    AgentId = "ines-sells",
                    GameTime = Morning.AddMinutes(1),
                    SpeakerId = "player",
                    Utterance = "I'll take two ration packs, please",
                });
                Assert.IsNotNull(reply.GameAction, reply.Text);
                Assert.AreEqual("sell", reply.GameAction.Name);
                Assert.AreEqual("ration_pack", reply.GameAction.Arguments["item"]);
                Assert.AreEqual(8, reply.GameAction.Price);
                var memory = await client.ReportOutcomeAsync(new ReportOutcomeRequest
                {
                    AgentId = "ines-sells",
                    ActionId = reply.GameAction.ActionId,
                    Done = true,
                    GameTime = Morning.AddMinutes(2),
                });
                StringAssert.Contains("ration pack", memory.Description);
            }
        }

        [Test]
        public async Task ABadRequestFailsNamingTheFieldAndChangesNothing()
        {
            using (var client = Client())
            {
                await Keeper(client, "ines-bad");
                var before = await client.ListMemoriesAsync(new ListMemoriesRequest { AgentId = "ines-bad" });
                var error = await Fails(() => client.PerceiveAsync(new PerceiveRequest
                {
                    AgentId = "ines-bad",
                    GameTime = Morning,
                    Observations = { new Observation { Text = "fine" }, new Observation { Text = "" } },
                }));
                Assert.AreEqual(StatusCode.InvalidArgument, error.Status);
                Assert.AreEqual("INVALID_ARGUMENT", error.StatusName);
                Assert.AreEqual("observations[1].text", error.Field);
                Assert.AreEqual(400, error.HttpStatus);
                var after = await client.ListMemoriesAsync(new ListMemoriesRequest { AgentId = "ines-bad" });
                Assert.AreEqual(before.Memories.Count, after.Memories.Count);
            }
        }

        [Test]
        public async Task AnUnknownAgentIsNotFound()
        {
            using (var client = Client())
            {
                var error = await Fails(() => client.GetAgentAsync(new GetAgentRequest { AgentId = "nobody-here" }));
                Assert.AreEqual(StatusCode.NotFound, error.Status);
                Assert.AreEqual(404, error.HttpStatus);
            }
        }

        [Test]
        public async Task ABusyServerIsAskedAgainUntilItAnswers()
        {
            using (var client = Client(Env("NPC_BRAIN_FAULT_URL")))
            {
                var perceived = await client.PerceiveAsync(new PerceiveRequest
                {
                    AgentId = "busy-2-cs", GameTime = Morning, Observations = { new Observation { Text = "a" } },
                });
                Assert.AreEqual(1, perceived.MemoryIds.Count);
                CollectionAssert.AreEqual(new[] { "Perceive", "Perceive", "Perceive" }, await Received("busy-2-cs"));
            }
        }

        [Test]
        public async Task RetryAfterIsWaitedFor()
        {
            using (var client = Client(Env("NPC_BRAIN_FAULT_URL")))
            {
                var clock = Stopwatch.StartNew();
                await client.GetAgentAsync(new GetAgentRequest { AgentId = "throttled-1-cs" });
                Assert.GreaterOrEqual(clock.Elapsed.TotalSeconds, 0.95);
                Assert.AreEqual(2, (await Received("throttled-1-cs")).Count);
            }
        }

        [Test]
        public async Task ALostPerceiveIsNotSentTwiceButALostGetAgentIs()
        {
            using (var client = Client(Env("NPC_BRAIN_FAULT_URL")))
            {
                var error = await Fails(() => client.PerceiveAsync(new PerceiveRequest
                {
                    AgentId = "drop-1-perceive-cs", GameTime = Morning, Observations = { new Observation { Text = "a" } },
                }));
                Assert.AreEqual(StatusCode.Unavailable, error.Status);
                Assert.AreEqual(1, (await Received("drop-1-perceive-cs")).Count, "no duplicate memory");
                var agent = await client.GetAgentAsync(new GetAgentRequest { AgentId = "drop-1-get-cs" });
                Assert.AreEqual("drop-1-get-cs", agent.AgentId);
                Assert.AreEqual(2, (await Received("drop-1-get-cs")).Count);
            }
        }

        [Test]
        public async Task ABrokenStreamFailsOnceAndIsNotSentAgain()
        {
            using (var client = Client(Env("NPC_BRAIN_FAULT_URL")))
            {
                var tokens = new List<string>();
                var failures = 0;
                try
                {
                    await client.ConverseAsync(
                        new ConverseRequest { AgentId = "broken-stream-cs", GameTime = Morning, SpeakerId = "player", Utterance = "hi" },
                        tokens.Add);
                }
                catch (NpcBrainException error)
                {
                    failures++;
                    Assert.AreEqual(StatusCode.Unavailable, error.Status);
                }
                Assert.AreEqual(1, failures);
                CollectionAssert.AreEqual(new[] { "Hello", " there" }, tokens);
                CollectionAssert.AreEqual(new[] { "Converse" }, await Received("broken-stream-cs"));
            }
        }

        [Test]
        public async Task AnErrorLineEndsTheStreamWithItsStatus()
        {
            using (var client = Client(Env("NPC_BRAIN_FAULT_URL")))
            {
                var error = await Fails(() => client.ConverseAsync(new ConverseRequest
                {
                    AgentId = "error-stream-cs", GameTime = Morning, SpeakerId = "player", Utterance = "hi",
                }));
                Assert.AreEqual(StatusCode.Unavailable, error.Status);
                StringAssert.Contains("model worker stopped", error.Message);
            }
        }

        [Test]
        public async Task KeepAliveLinesAreSkipped()
        {
            using (var client = Client(Env("NPC_BRAIN_FAULT_URL")))
            {
                var reply = await client.ConverseAsync(new ConverseRequest
                {
                    AgentId = "waiting-600-cs", GameTime = Morning, SpeakerId = "player", Utterance = "hi",
                });
                Assert.AreEqual("Hello there", reply.Text);
            }
        }

        [Test]
        public async Task NoServerIsUnavailableAfterTheRetries()
        {
            using (var client = Client(Env("NPC_BRAIN_DEAD_URL"), retries: 2))
            {
                var error = await Fails(() => client.GetStatsAsync(new GetStatsRequest()));
                Assert.AreEqual(StatusCode.Unavailable, error.Status);
                Assert.AreEqual(0, error.HttpStatus);
            }
        }

        [Test]
        public async Task ACancelledCallThrowsOperationCanceled()
        {
            using (var client = Client(Env("NPC_BRAIN_FAULT_URL")))
            using (var cancel = new CancellationTokenSource(TimeSpan.FromMilliseconds(100)))
            {
                try
                {
                    await client.GetAgentAsync(new GetAgentRequest { AgentId = "slow-2000-cs" }, cancel.Token);
                    Assert.Fail("the call was not cancelled");
                }
                catch (OperationCanceledException)
                {
                }
            }
        }
    }
}

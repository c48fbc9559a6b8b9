#if UNITY_2021_3_OR_NEWER
using System;
using UnityEditor;

namespace NpcBrain.Client.EditorTools
{
    /// <summary>Tools > npc-brain > Check Server: whether the server at the URL kept in
    /// EditorPrefs ("npc-brain.serverUrl", default http://127.0.0.1:50052) answers, and
    /// how many model calls it has made.</summary>
    public static class NpcBrainMenu
    {
        const string UrlKey = "npc-brain.serverUrl";

        [MenuItem("Tools/npc-brain/Check Server")]
        public static async void CheckServer()
        {
            var url = EditorPrefs.GetString(UrlKey, "http://127.0.0.1:50052");
            using (var client = new NpcBrainClient(new NpcBrainClientOptions { ServerUrl = url, MaxRetries = 0, Timeout = TimeSpan.FromSeconds(5) }))
            {
                try
                {
                    var stats = await client.GetStatsAsync(new GetStatsRequest());
                    EditorUtility.DisplayDialog("npc-brain", url + " answers: " + stats.ModelCalls + " model calls so far.", "OK");
                }
                catch (NpcBrainException error)
                {
                    EditorUtility.DisplayDialog("npc-brain", url + ": " + error, "OK");
                }
            }
        }
    }
}
#endif
